//! The translation of one parsed star-join `SELECT` into the engine's [`Query`]: the
//! FROM tables and their columns, the WHERE conjunction into join equalities and
//! per-column predicates, the select list, GROUP BY, ORDER BY and LIMIT (the family:
//! [`super`]).

use std::collections::BTreeMap;

use sqlparser::ast::{
    self, BinaryOperator, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    JoinConstraint, JoinOperator, LimitClause, OrderByKind, OrderBySort, SelectItem, SetExpr,
    Spanned, Statement, TableFactor, UnaryOperator, Value,
};

use super::{Synonyms, Tables, MAX_LIST_ITEMS};
use crate::error::{Error, Result};
use crate::query::{AggFn, Aggregate, Cond, Expr, Join, Literal, Op, OrderKey, Predicate, Query};

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

/// The `AND`-separated parts of `e`.
fn conjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        ast::Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                ast::Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts(inner)
        }
        _ => vec![e],
    }
}

/// The `OR`-separated parts of `e`.
fn disjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            let mut v = disjuncts(left);
            v.extend(disjuncts(right));
            v
        }
        ast::Expr::Nested(inner) => disjuncts(inner),
        _ => vec![e],
    }
}

/// An integer or string literal.
fn literal(e: &ast::Expr) -> Result<Literal> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            Value::Number(n, _) => match n.parse::<i64>() {
                Ok(v) => Ok(Literal::Int(v)),
                // A decimal number, read exactly at its column's scale when run.
                Err(_) if is_decimal(n) => Ok(Literal::Dec(n.clone())),
                Err(_) => Err(unsupported(
                    "the number (64-bit integers and decimals `1.25`)",
                    e,
                )),
            },
            Value::SingleQuotedString(s) => Ok(Literal::Str(s.clone())),
            Value::Null => Err(Error::Query(format!(
                "SQL: a comparison with NULL{} is never true: write IS NULL or IS NOT NULL",
                at(e)
            ))),
            _ => Err(unsupported("the literal", e)),
        },
        ast::Expr::TypedString(ts) if matches!(ts.data_type, ast::DataType::Date) => {
            match &ts.value.value {
                Value::SingleQuotedString(s) => Ok(Literal::Date(s.clone())),
                _ => Err(unsupported("the date literal", e)),
            }
        }
        ast::Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Int(v) => Ok(Literal::Int(-v)),
            Literal::Dec(d) if !d.starts_with('-') => Ok(Literal::Dec(format!("-{d}"))),
            _ => Err(unsupported("the literal", e)),
        },
        ast::Expr::Nested(inner) => literal(inner),
        _ => Err(unsupported("the operand (a literal is needed)", e)),
    }
}

/// The literal `NULL` (parenthesised or not).
fn is_null(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(v) => matches!(v.value, Value::Null),
        ast::Expr::Nested(inner) => is_null(inner),
        _ => false,
    }
}

/// The refusal of `col = NULL`, `col <> NULL` and every other comparison with the
/// literal NULL: never true in SQL (NULL, not a boolean), so one almost always means IS
/// [NOT] NULL; the error says which.
fn null_comparison(e: &ast::Expr, op: &BinaryOperator) -> Error {
    let write = match op {
        BinaryOperator::Eq => "write IS NULL",
        BinaryOperator::NotEq => "write IS NOT NULL",
        _ => "write IS NULL or IS NOT NULL",
    };
    Error::Query(format!(
        "SQL: `{e}`{}: a comparison with NULL is never true; {write}",
        at(e)
    ))
}

/// `digits.digits` (either side may be empty, not both): a decimal literal.
fn is_decimal(n: &str) -> bool {
    let (a, b) = n.split_once('.').unwrap_or((n, "x"));
    !(a.is_empty() && b.is_empty())
        && a.bytes().all(|c| c.is_ascii_digit())
        && b.bytes().all(|c| c.is_ascii_digit())
}

/// One comparison of the WHERE clause: a join equality, or a predicate on a column (the
/// bound it sets; false when that bound was set already).
enum Leaf {
    Equal(Col, Col),
    Pred(Col, Box<dyn FnOnce(&mut Predicate) -> bool>),
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
    fn column(&self, e: &ast::Expr) -> Result<Col> {
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

    /// One part of the WHERE conjunction (or of a JOIN … ON).
    fn conjunct(&mut self, e: &ast::Expr) -> Result<()> {
        match e {
            ast::Expr::Nested(inner) => self.conjunct(inner),
            ast::Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            } => self.or(e),
            _ => match self.leaf(e)? {
                Leaf::Equal(a, b) => {
                    self.equal.push((a, b, e.to_string()));
                    Ok(())
                }
                Leaf::Pred(c, f) => self.add_pred(c, e, f),
            },
        }
    }

    /// An OR: of equalities on one column, an IN list (on any table); else a condition
    /// over the columns of one dimension ([`Cond`]), evaluated on its rows.
    fn or(&mut self, e: &ast::Expr) -> Result<()> {
        let mut col: Option<Col> = None;
        let mut lits = Vec::new();
        for d in disjuncts(e) {
            let ast::Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } = d
            else {
                col = None;
                break;
            };
            let Ok(l) = literal(right) else {
                col = None;
                break;
            };
            let Ok(c) = self.column(left) else {
                col = None;
                break;
            };
            if col.as_ref().is_some_and(|k| *k != c) {
                col = None;
                break;
            }
            col = Some(c);
            lits.push(l);
        }
        if let Some(c) = col {
            return self.add_pred(c, e, |p| set(&mut p.one_of, lits));
        }
        let mut tables = Vec::new();
        let cond = self.cond(e, &mut tables)?;
        match tables.as_slice() {
            [t] => {
                self.conds.push((
                    t.clone(),
                    cond,
                    unsupported("the OR over several columns of the fact table", e).to_string(),
                ));
                Ok(())
            }
            _ => Err(unsupported("the OR over several tables", e)),
        }
    }

    /// `e` (inside an OR) as a condition; the tables of its columns are added to `tables`.
    fn cond(&self, e: &ast::Expr, tables: &mut Vec<String>) -> Result<Cond> {
        let parts = |list: Vec<&ast::Expr>, tables: &mut Vec<String>| {
            list.into_iter()
                .map(|x| self.cond(x, tables))
                .collect::<Result<Vec<_>>>()
        };
        match e {
            ast::Expr::Nested(inner) => self.cond(inner, tables),
            ast::Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            } => Ok(Cond::Any(parts(disjuncts(e), tables)?)),
            ast::Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            } => Ok(Cond::All(parts(conjuncts(e), tables)?)),
            _ => match self.leaf(e)? {
                Leaf::Equal(..) => Err(unsupported("the join equality inside an OR", e)),
                Leaf::Pred(c, f) => {
                    let mut p = Predicate::default();
                    f(&mut p);
                    if !tables.contains(&c.table) {
                        tables.push(c.table.clone());
                    }
                    Ok(Cond::Where(BTreeMap::from([(c.column, p)])))
                }
            },
        }
    }

    /// A comparison, BETWEEN or IN of one column with literals (a predicate), or an
    /// equality of two tables' columns (a join).
    fn leaf(&self, e: &ast::Expr) -> Result<Leaf> {
        use BinaryOperator as B;
        match e {
            ast::Expr::Nested(inner) => self.leaf(inner),
            ast::Expr::BinaryOp { left, op, right } => match op {
                B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq => {
                    if is_null(left) || is_null(right) {
                        return Err(null_comparison(e, op));
                    }
                    let l_col = self.column(left);
                    let r_col = self.column(right);
                    if let (Ok(a), Ok(b)) = (&l_col, &r_col) {
                        if *op != B::Eq || a.table == b.table {
                            return Err(unsupported("the comparison of two columns", e));
                        }
                        return Ok(Leaf::Equal(a.clone(), b.clone()));
                    }
                    // column op literal, or literal op column (flipped); a side that is
                    // no literal must be a column, and its error (an unknown column) is the
                    // one reported.
                    let (c, lit, op) = match (literal(right), literal(left)) {
                        (Ok(l), _) => (l_col?, l, op.clone()),
                        (Err(_), Ok(l)) => {
                            let flipped = match op {
                                B::Lt => B::Gt,
                                B::LtEq => B::GtEq,
                                B::Gt => B::Lt,
                                B::GtEq => B::LtEq,
                                o => o.clone(),
                            };
                            (r_col?, l, flipped)
                        }
                        (Err(e), Err(_)) => {
                            // No literal, and not two columns: name the side that is no
                            // column.
                            l_col?;
                            r_col?;
                            return Err(e);
                        }
                    };
                    Ok(Leaf::Pred(
                        c,
                        Box::new(move |p: &mut Predicate| match op {
                            B::Eq => set(&mut p.eq, lit),
                            B::NotEq => set(&mut p.ne, lit),
                            B::Lt => set(&mut p.lt, lit),
                            B::LtEq => set(&mut p.le, lit),
                            B::Gt => set(&mut p.gt, lit),
                            _ => set(&mut p.ge, lit),
                        }),
                    ))
                }
                _ => Err(unsupported("the operator", e)),
            },
            ast::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let c = self.column(expr)?;
                let (lo, hi) = (literal(low)?, literal(high)?);
                let negated = *negated;
                Ok(Leaf::Pred(
                    c,
                    Box::new(move |p: &mut Predicate| {
                        if negated {
                            set(&mut p.not_between, (lo, hi))
                        } else {
                            set(&mut p.between, (lo, hi))
                        }
                    }),
                ))
            }
            ast::Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated,
                global: false,
            } => {
                let c = self.column(expr)?;
                if list.len() > MAX_LIST_ITEMS {
                    return Err(Error::Query(format!(
                        "SQL: an IN list of {} values{} (at most {MAX_LIST_ITEMS})",
                        list.len(),
                        at(expr.as_ref())
                    )));
                }
                let lits = list.iter().map(literal).collect::<Result<Vec<_>>>()?;
                let negated = *negated;
                Ok(Leaf::Pred(
                    c,
                    Box::new(move |p: &mut Predicate| {
                        if negated {
                            set(&mut p.not_in, lits)
                        } else {
                            set(&mut p.one_of, lits)
                        }
                    }),
                ))
            }
            ast::Expr::IsNull(inner) => {
                let c = self.column(inner)?;
                Ok(Leaf::Pred(
                    c,
                    Box::new(|p: &mut Predicate| set(&mut p.is_null, true)),
                ))
            }
            ast::Expr::IsNotNull(inner) => {
                let c = self.column(inner)?;
                Ok(Leaf::Pred(
                    c,
                    Box::new(|p: &mut Predicate| set(&mut p.is_null, false)),
                ))
            }
            _ => Err(unsupported("the condition", e)),
        }
    }

    /// Adds a bound to the column's predicate; a bound given twice is refused.
    fn add_pred(
        &mut self,
        c: Col,
        e: &ast::Expr,
        f: impl FnOnce(&mut Predicate) -> bool,
    ) -> Result<()> {
        if f(self.preds.entry(c).or_default()) {
            Ok(())
        } else {
            Err(unsupported(
                "the condition (a second bound of the same kind on one column)",
                e,
            ))
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

    /// `SUM`, `MIN`, `MAX`, `AVG` of a fact column or of `a op b`; `COUNT(*)` or
    /// `COUNT` of such an expression (the rows where it is not NULL).
    fn aggregate(&self, e: &ast::Expr, name: String) -> Result<Aggregate> {
        let ast::Expr::Function(f) = e else {
            return Err(unsupported("the select item", e));
        };
        let func = match f.name.to_string().to_ascii_lowercase().as_str() {
            "sum" => AggFn::Sum,
            "count" => AggFn::Count,
            "min" => AggFn::Min,
            "max" => AggFn::Max,
            "avg" => AggFn::Avg,
            _ => {
                return Err(unsupported(
                    "the function (SUM, COUNT, MIN, MAX, AVG only)",
                    e,
                ))
            }
        };
        if f.filter.is_some()
            || f.over.is_some()
            || f.null_treatment.is_some()
            || !f.within_group.is_empty()
            || !matches!(f.parameters, FunctionArguments::None)
        {
            return Err(unsupported("the aggregate's clause", e));
        }
        let FunctionArguments::List(l) = &f.args else {
            return Err(unsupported("the aggregate's arguments", e));
        };
        if l.duplicate_treatment.is_some() || !l.clauses.is_empty() {
            return Err(unsupported("DISTINCT or a clause in the aggregate", e));
        }
        let arg = match l.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] => arg,
            [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if func == AggFn::Count => {
                return Ok(Aggregate {
                    name,
                    func,
                    arg: None,
                })
            }
            _ => return Err(unsupported("the aggregate's arguments", e)),
        };
        let fact_col = |x: &ast::Expr| -> Result<String> {
            let c = self.column(x)?;
            if c.table != self.fact {
                return Err(unsupported("the aggregate over a dimension column", x));
            }
            Ok(c.column)
        };
        let arg = match arg {
            ast::Expr::Nested(inner) => inner.as_ref(),
            a => a,
        };
        let expr = match arg {
            ast::Expr::BinaryOp { left, op, right } => {
                let op = match op {
                    BinaryOperator::Plus => Op::Add,
                    BinaryOperator::Minus => Op::Sub,
                    BinaryOperator::Multiply => Op::Mul,
                    _ => return Err(unsupported("the operator (+, -, * only)", arg)),
                };
                Expr::Bin(fact_col(left)?, op, fact_col(right)?)
            }
            a => Expr::Col(fact_col(a)?),
        };
        Ok(Aggregate {
            name,
            func,
            arg: Some(expr),
        })
    }

    fn projection(&mut self, items: &[SelectItem], out: &mut Query) -> Result<()> {
        for item in items {
            let (e, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.clone())),
                _ => return Err(unsupported("the select item", item)),
            };
            if let ast::Expr::Function(_) = e {
                let name = alias.unwrap_or_else(|| e.to_string());
                let a = self.aggregate(e, name.clone())?;
                self.items.push(None);
                out.aggregates.push(a);
                out.select.push(name);
                continue;
            }
            let c = self.column(e)?;
            if let Some(a) = alias.filter(|a| *a != c.column) {
                out.aliases.insert(c.column.clone(), a);
            }
            carry(out, &c);
            out.select.push(c.column.clone());
            self.items.push(Some(c));
        }
        // An alias is the one name of its answer column (ORDER BY and GROUP BY name it).
        let names = out.column_names();
        for a in out.aliases.values() {
            if names.iter().filter(|n| *n == a).count() > 1 {
                return Err(Error::Query(format!(
                    "SQL: the alias `{a}` names two select items; give each its own name"
                )));
            }
        }
        Ok(())
    }

    /// The selected column whose alias `e` is (`SELECT d_year AS y … GROUP BY y`).
    fn aliased(&self, e: &ast::Expr, out: &Query) -> Option<Col> {
        let ast::Expr::Identifier(i) = e else {
            return None;
        };
        let (column, _) = out.aliases.iter().find(|(_, a)| **a == i.value)?;
        self.items
            .iter()
            .flatten()
            .find(|c| c.column == *column)
            .cloned()
    }

    /// GROUP BY: columns (or select-list positions of columns), in any order; every
    /// selected column among them, and those not selected grouped by as well (carried,
    /// left out of the answer).
    fn group_by(&self, g: &GroupByExpr, out: &mut Query) -> Result<()> {
        let GroupByExpr::Expressions(list, mods) = g else {
            return Err(unsupported("GROUP BY ALL", g));
        };
        if !mods.is_empty() {
            return Err(unsupported("the GROUP BY modifier", g));
        }
        let mut got: Vec<Col> = Vec::new();
        for e in list {
            let c = match e {
                ast::Expr::Value(v) if matches!(v.value, Value::Number(..)) => {
                    let Value::Number(n, _) = &v.value else {
                        unreachable!()
                    };
                    n.parse::<usize>()
                        .ok()
                        .and_then(|p| p.checked_sub(1))
                        .and_then(|p| self.items.get(p))
                        .and_then(Clone::clone)
                        .ok_or_else(|| {
                            unsupported(
                                "the GROUP BY position (not a selected column's position)",
                                e,
                            )
                        })?
                }
                // A column, else the alias of a selected column (as DuckDB: a column of
                // that name comes first).
                _ => match self.column(e) {
                    Ok(c) => c,
                    Err(err) => self.aliased(e, out).ok_or(err)?,
                },
            };
            if !got.contains(&c) {
                got.push(c);
            }
        }
        if let Some(c) = self.items.iter().flatten().find(|c| !got.contains(c)) {
            return Err(Error::Query(format!(
                "SQL: the selected column `{}` is not in GROUP BY ({}); aggregate it or group by it",
                c.column,
                if got.is_empty() {
                    "there is none".to_string()
                } else {
                    got.iter()
                        .map(|c| c.column.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )));
        }
        for c in got {
            if !self.items.contains(&Some(c.clone())) {
                carry(out, &c);
            }
        }
        Ok(())
    }

    /// The name of the answer column an ORDER BY expression means: an alias (of an
    /// aggregate or a selected column), a selected
    /// column, a position (`ORDER BY 2`, from 1), a group-by column not selected, or an
    /// aggregate — one selected (the same function of the same argument, however
    /// written) or one computed only to order by.
    fn order_key(&self, e: &ast::Expr, out: &mut Query) -> Result<String> {
        if let ast::Expr::Identifier(i) = e {
            if let Some((column, _)) = out.aliases.iter().find(|(_, a)| **a == i.value) {
                return Ok(column.clone());
            }
            if out.select.contains(&i.value) {
                return Ok(i.value.clone());
            }
        }
        if let ast::Expr::Value(v) = e {
            if let Value::Number(n, _) = &v.value {
                return n
                    .parse::<usize>()
                    .ok()
                    .and_then(|p| p.checked_sub(1))
                    .and_then(|p| out.select.get(p).cloned())
                    .ok_or_else(|| {
                        unsupported("the ORDER BY position (not a select-list position)", e)
                    });
            }
        }
        if let ast::Expr::Function(_) = e {
            let a = self.aggregate(e, e.to_string())?;
            if let Some(have) = out
                .aggregates
                .iter()
                .find(|h| h.func == a.func && h.arg == a.arg)
            {
                return Ok(have.name.clone());
            }
            // Not selected: computed under a name no other answer column has.
            let mut name = a.name.clone();
            while out.select.contains(&name)
                || out.aggregates.iter().any(|h| h.name == name)
                || out.carry.contains(&name)
                || out.joins.iter().any(|j| j.carry.contains(&name))
            {
                name.push('\'');
            }
            out.aggregates.push(Aggregate {
                name: name.clone(),
                ..a
            });
            return Ok(name);
        }
        let c = self.column(e)?;
        let carried = if c.table == out.fact {
            out.carry.contains(&c.column)
        } else {
            out.joins
                .iter()
                .any(|j| j.dim == c.table && j.carry.contains(&c.column))
        };
        if carried {
            return Ok(c.column);
        }
        Err(unsupported(
            "the ORDER BY column (neither selected nor grouped by)",
            e,
        ))
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
