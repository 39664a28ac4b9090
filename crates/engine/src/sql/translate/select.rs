//! The select list, GROUP BY and ORDER BY of a translated `SELECT`: aggregates of fact
//! columns, selected (and aliased) group-by columns, and what each ORDER BY key names.

use sqlparser::ast::{
    self, BinaryOperator, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, SelectItem,
    Value,
};

use super::{carry, unsupported, Col, Translator};
use crate::error::{Error, Result};
use crate::query::{AggFn, Aggregate, Expr, Op, Query};

impl Translator<'_> {
    /// `SUM`, `MIN`, `MAX`, `AVG` of a fact column or of `a op b`; `COUNT(*)` or
    /// `COUNT` of such an expression (the rows where it is not NULL).
    pub(super) fn aggregate(&self, e: &ast::Expr, name: String) -> Result<Aggregate> {
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

    pub(super) fn projection(&mut self, items: &[SelectItem], out: &mut Query) -> Result<()> {
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
    pub(super) fn group_by(&self, g: &GroupByExpr, out: &mut Query) -> Result<()> {
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
    pub(super) fn order_key(&self, e: &ast::Expr, out: &mut Query) -> Result<String> {
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
