//! The WHERE clause (and JOIN … ON) of a translated `SELECT`: its conjunction into join
//! equalities, per-column predicates and conditions over several columns of one table
//! (an OR).

use std::collections::BTreeMap;

use sqlparser::ast::{self, BinaryOperator};

use super::syntax::{conjuncts, disjuncts, is_null, literal, null_comparison};
use super::{at, set, unsupported, Col, Translator};
use crate::error::{Error, Result};
use crate::query::{Cond, Predicate};
use crate::sql::MAX_LIST_ITEMS;

/// One comparison of the WHERE clause: a join equality, or a predicate on a column (the
/// bound it sets; false when that bound was set already).
enum Leaf {
    Equal(Col, Col),
    Pred(Col, Box<dyn FnOnce(&mut Predicate) -> bool>),
}

impl Translator<'_> {
    /// One part of the WHERE conjunction (or of a JOIN … ON).
    pub(super) fn conjunct(&mut self, e: &ast::Expr) -> Result<()> {
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
}
