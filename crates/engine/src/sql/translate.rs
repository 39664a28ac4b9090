//! The translation of one parsed star-join `SELECT` into the engine's [`Query`]: the
//! FROM tables and their columns, the joins into a star, LIMIT (here); the WHERE
//! conjunction into join equalities and per-column predicates (`filter`), the select
//! list, GROUP BY and ORDER BY (`select`), literals and AND / OR parts (`syntax`) (the
//! family: [`super`]).

mod filter;
mod select;
mod syntax;

use std::collections::BTreeMap;

use sqlparser::ast::{
    self, JoinConstraint, JoinOperator, LimitClause, OrderByKind, OrderBySort, SetExpr, Spanned,
    Statement, TableFactor,
};

use super::{Synonyms, Tables};
use crate::error::{Error, Result};
use crate::query::{Cond, Join, Literal, OrderKey, Predicate, Query};
use syntax::{conjuncts, literal};

fn at(node: &impl Spanned) -> String {
    let s = node.span().start;
    if s.line == 0 {
        String::new()
    } else {
        format!(" at line {} column {}", s.line, s.column)
    }
}

fn unsupported(what: &str, node: &(impl Spanned + std::fmt::Display)) -> Error {
    let text = node.to_string();
    let text = match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    };
    Error::Query(format!(
        "SQL: {what} `{text}`{} is outside the supported star-join family (docs/engine.md)",
        at(node)
    ))
}

/// Translates one parsed statement (a `SELECT` of the family) into a query named `id`;
/// `tables(name)` gives a table's columns, `synonym(name)` the table another name means.
pub(super) fn translate(
    stmt: &Statement,
    id: &str,
    tables: Tables<'_>,
    synonym: Synonyms<'_>,
) -> Result<Query> {
    let Statement::Query(q) = stmt else {
        return Err(unsupported("the statement", stmt));
    };
    if q.with.is_some() || q.fetch.is_some() {
        return Err(unsupported("the clause", q.as_ref()));
    }
    let SetExpr::Select(s) = q.body.as_ref() else {
        return Err(unsupported("the query body", q.body.as_ref()));
    };
    let mut t = Translator::new(tables, synonym);
    t.from(&s.from)?;
    if let Some(w) = &s.selection {
        for c in conjuncts(w) {
            t.conjunct(c)?;
        }
    }
    if s.having.is_some() || s.distinct.is_some() || s.top.is_some() {
        return Err(unsupported("HAVING / DISTINCT / TOP in", s.as_ref()));
    }
    let mut out = t.finish_joins()?;
    out.id = id.to_string();
    t.projection(&s.projection, &mut out)?;
    t.group_by(&s.group_by, &mut out)?;
    if let Some(ob) = &q.order_by {
        let OrderByKind::Expressions(list) = &ob.kind else {
            return Err(unsupported("ORDER BY ALL", ob));
        };
        for e in list {
            let name = t.order_key(&e.expr, &mut out)?;
            let desc = matches!(e.options.sort, Some(OrderBySort::Desc));
            out.order_by.push(OrderKey { name, desc });
        }
    }
    if let Some(l) = &q.limit_clause {
        out.limit = match l {
            LimitClause::LimitOffset {
                limit: Some(e),
                offset: None,
                limit_by,
            } if limit_by.is_empty() => match literal(e)? {
                Literal::Int(n) if n >= 0 => Some(n as usize),
                _ => return Err(unsupported("the limit", e)),
            },
            _ => return Err(unsupported("the LIMIT clause", l)),
        };
    }
    out.validate()?;
    Ok(out)
}

/// A `(table, column)` the query names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Col {
    table: String,
    column: String,
}

struct Translator<'a> {
    tables: Tables<'a>,
    synonym: Synonyms<'a>,
    /// FROM tables: (name in the database, alias, columns).
    from: Vec<(String, String, Vec<String>)>,
    /// Join equalities.
    equal: Vec<(Col, Col, String)>,
    /// Predicates per column.
    preds: BTreeMap<Col, Predicate>,
    /// Conditions over several columns of one table (an OR): the table, the condition
    /// and the refusal should the table be the fact table.
    conds: Vec<(String, Cond, String)>,
    fact: String,
    /// The select list's columns by position (None: an aggregate).
    items: Vec<Option<Col>>,
}

impl<'a> Translator<'a> {
    fn new(tables: Tables<'a>, synonym: Synonyms<'a>) -> Self {
        Translator {
            tables,
            synonym,
            from: Vec::new(),
            equal: Vec::new(),
            preds: BTreeMap::new(),
            conds: Vec::new(),
            fact: String::new(),
            items: Vec::new(),
        }
    }

    fn add_table(&mut self, f: &TableFactor) -> Result<()> {
        let TableFactor::Table { name, alias, .. } = f else {
            return Err(unsupported("the FROM item", f));
        };
        let written = name.to_string();
        let (db_name, cols) = match (self.tables)(&written) {
            Some(c) => (written.clone(), c),
            // Another name of a table, as the database's writer recorded it.
            None => match (self.synonym)(&written).and_then(|t| Some(((self.tables)(&t)?, t))) {
                Some((c, t)) => (t, c),
                None => return Err(unsupported("the table (not in the database)", f)),
            },
        };
        let alias = alias.as_ref().map_or(written, |a| a.name.value.clone());
        if self
            .from
            .iter()
            .any(|(n, a, _)| *n == db_name || *a == alias)
        {
            return Err(unsupported("the table, named twice,", f));
        }
        self.from.push((db_name, alias, cols));
        Ok(())
    }

    fn from(&mut self, from: &[ast::TableWithJoins]) -> Result<()> {
        for twj in from {
            self.add_table(&twj.relation)?;
            for j in &twj.joins {
                self.add_table(&j.relation)?;
                match &j.join_operator {
                    JoinOperator::Join(JoinConstraint::On(e))
                    | JoinOperator::Inner(JoinConstraint::On(e)) => {
                        for c in conjuncts(e) {
                            self.conjunct(c)?;
                        }
                    }
                    JoinOperator::CrossJoin(_) => {}
                    _ => return Err(unsupported("the join (inner joins ON only)", j)),
                }
            }
        }
        if self.from.is_empty() {
            return Err(Error::Query("SQL: no FROM table".into()));
        }
        Ok(())
    }

    /// The column `e` names.
    pub(super) fn column(&self, e: &ast::Expr) -> Result<Col> {
        let (qual, name) = match e {
            ast::Expr::Identifier(i) => (None, i.value.clone()),
            ast::Expr::CompoundIdentifier(v) if v.len() == 2 => {
                (Some(v[0].value.clone()), v[1].value.clone())
            }
            ast::Expr::Nested(inner) => return self.column(inner),
            _ => return Err(unsupported("the expression (a column is needed)", e)),
        };
        let hits: Vec<&(String, String, Vec<String>)> = self
            .from
            .iter()
            .filter(|(t, a, cols)| {
                qual.as_ref().is_none_or(|q| q == a || q == t) && cols.contains(&name)
            })
            .collect();
        match hits.as_slice() {
            [(t, _, _)] => Ok(Col {
                table: t.clone(),
                column: name,
            }),
            [] => Err(Error::Query(format!(
                "SQL: no FROM table ({}) has the column `{e}`{}",
                self.from
                    .iter()
                    .map(|(t, _, _)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                at(e)
            ))),
            _ => Err(unsupported(
                "the column (in several FROM tables; qualify it)",
                e,
            )),
        }
    }

    /// The fact table (the one every join equality touches) and the joins.
    fn finish_joins(&mut self) -> Result<Query> {
        let fact = if self.equal.is_empty() {
            if self.from.len() > 1 {
                return Err(Error::Query(
                    "SQL: several tables but no join equality between them".into(),
                ));
            }
            self.from[0].0.clone()
        } else {
            let (a, b, _) = &self.equal[0];
            [&a.table, &b.table]
                .into_iter()
                .find(|t| {
                    self.equal
                        .iter()
                        .all(|(x, y, _)| x.table == **t || y.table == **t)
                })
                .cloned()
                .ok_or_else(|| {
                    Error::Query(
                        "SQL: the joins do not form a star (no table is in every join equality)"
                            .into(),
                    )
                })?
        };
        self.fact = fact.clone();
        let mut joins = Vec::new();
        for (a, b, text) in &self.equal {
            let (fk, dk) = if a.table == fact { (a, b) } else { (b, a) };
            if joins.iter().any(|j: &Join| j.dim == dk.table) {
                return Err(Error::Query(format!(
                    "SQL: `{text}`: dimension {} joined twice",
                    dk.table
                )));
            }
            joins.push(Join {
                dim: dk.table.clone(),
                on: (fk.column.clone(), dk.column.clone()),
                filters: BTreeMap::new(),
                conditions: Vec::new(),
                carry: Vec::new(),
                index: Default::default(),
            });
        }
        for (t, _, _) in &self.from {
            if *t != fact && !joins.iter().any(|j| j.dim == *t) {
                return Err(Error::Query(format!(
                    "SQL: table {t} is not joined to the fact table {fact}"
                )));
            }
        }
        for (t, cond, refusal) in std::mem::take(&mut self.conds) {
            match joins.iter_mut().find(|j| j.dim == t) {
                Some(j) => j.conditions.push(cond),
                None => return Err(Error::Query(refusal)),
            }
        }
        let mut filters = BTreeMap::new();
        for (c, p) in std::mem::take(&mut self.preds) {
            if c.table == fact {
                filters.insert(c.column, p);
            } else if let Some(j) = joins.iter_mut().find(|j| j.dim == c.table) {
                j.filters.insert(c.column, p);
            }
        }
        Ok(Query {
            id: String::new(),
            fact,
            filters,
            joins,
            carry: Vec::new(),
            aggregates: Vec::new(),
            select: Vec::new(),
            aliases: BTreeMap::new(),
            order_by: Vec::new(),
            limit: None,
        })
    }
}

/// Groups `out` by column `c` (of the fact table or a joined dimension).
fn carry(out: &mut Query, c: &Col) {
    if c.table == out.fact {
        out.carry.push(c.column.clone());
    } else if let Some(j) = out.joins.iter_mut().find(|j| j.dim == c.table) {
        j.carry.push(c.column.clone());
    }
}

/// Sets an unset bound; false when it was set already.
fn set<T>(slot: &mut Option<T>, v: T) -> bool {
    if slot.is_some() {
        return false;
    }
    *slot = Some(v);
    true
}
