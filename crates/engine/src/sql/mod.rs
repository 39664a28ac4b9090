//! Star-join SQL into the engine's [`Query`] (one model, two syntaxes: this and the YAML
//! of [`crate::query`]). Parsed with `sqlparser`; the family accepted is the SSB texts and
//! queries of their shape:
//!
//! - `SELECT` of group-by columns and `SUM`, `COUNT`, `MIN`, `MAX`, `AVG` of a fact column
//!   or `a op b` (`op`: `+ - *`), each optionally `AS alias`;
//! - `FROM` the fact table and dimensions, as a comma list or `JOIN … ON`, each maybe
//!   aliased (columns qualified by table or alias anywhere);
//! - `WHERE`: a conjunction of join equalities (`fact_fk = dim_key`) and predicates on one
//!   column each: `= <> < <= > >=`, `BETWEEN`, `IN (…)`, `OR` of equalities on one column,
//!   and `OR` across several columns of one dimension (with `AND`, `IN`, parentheses: a
//!   [`crate::query::Cond`] of that join);
//! - `GROUP BY` columns or positions in any order, every selected column and maybe more;
//!   `ORDER BY` select names, aliases, positions, group-by columns or any aggregate (those
//!   not selected are computed and left out of the answer); `LIMIT n`.
//!
//! The fact table is the table every join equality touches. Unqualified columns are found
//! in the `FROM` tables' schemas (`tables(name)` gives a table's columns); a name that is
//! no table may be another name of one that the database records (`synonym(name)`: the
//! SSB texts' `ddate` for `date`, from the schema file's `CREATE VIEW ddate AS SELECT *
//! FROM date`). Anything outside the
//! family is a one-line error naming the construct and its line and column — never a
//! guess.
//!
//! A [`Script`] is `;`-separated statements, split on the parser's own tokens (a `;` in a
//! string or a comment splits nothing); a `-- Qx.y` comment before a statement names it
//! (as in `ssb-reference/queries.sql`), else it is numbered from 1. Its syntax is checked
//! when it is parsed, before any database is opened; its names when it is translated
//! against a database's schema ([`Script::queries`]).
//!
//! Bounds (hostile input ends with one line, never a stack overflow): the text is at most
//! [`MAX_SQL_BYTES`]; a statement has at most [`MAX_OPERATORS`] operators and keywords —
//! counted on the tokens, before the parser builds a tree whose depth a chain of them
//! (`a = 1 OR a = 2 OR …`, `a + a + …`) would set, and which every later walk (ours, the
//! parser's printing and dropping) recurses through; nesting (parentheses, `NOT`, unary
//! minus, subqueries) is at most [`MAX_NESTING`] levels (the parser's recursion limit);
//! an `IN` list holds at most [`MAX_LIST_ITEMS`] values.

mod translate;

use sqlparser::ast::Statement;
use sqlparser::dialect::GenericDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::error::{Error, Result};
use crate::query::Query;

/// The columns of a table of the database, or None when it has no such table.
pub type Tables<'a> = &'a dyn Fn(&str) -> Option<Vec<String>>;

/// The table another name means in the database, or None.
pub type Synonyms<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The largest SQL text (a script of statements), in bytes.
pub const MAX_SQL_BYTES: usize = 1 << 20;
/// The most operators and keywords in one statement (see the module's bounds).
pub const MAX_OPERATORS: usize = 256;
/// The deepest nesting of an expression or query (the parser's recursion limit).
pub const MAX_NESTING: usize = 50;
/// The most values of an `IN` list (and of any list of a query: [`Query::validate`]).
pub const MAX_LIST_ITEMS: usize = crate::query::MAX_LIST_ITEMS;

/// Parsed SQL statements, each with its name; not yet checked against a schema.
#[derive(Debug)]
pub struct Script {
    statements: Vec<(String, Statement)>,
}

impl Script {
    /// Parses `text`: `;`-separated statements (at least one), each named by a `-- Qx.y`
    /// comment before it or numbered. Fails on a syntax error or a bound passed, naming
    /// the statement when there are several.
    pub fn parse(text: &str) -> Result<Script> {
        if text.len() > MAX_SQL_BYTES {
            return Err(Error::Query(format!(
                "SQL: {} bytes of text, more than the limit of {MAX_SQL_BYTES}",
                text.len()
            )));
        }
        let dialect = GenericDialect {};
        let tokens = Tokenizer::new(&dialect, text)
            .tokenize_with_location()
            .map_err(|e| Error::Query(format!("SQL: {e}")))?;
        let segments = split(tokens)?;
        let several = segments.len() > 1;
        let mut statements = Vec::with_capacity(segments.len());
        for (i, (name, tokens)) in segments.into_iter().enumerate() {
            let id = name.unwrap_or_else(|| (i + 1).to_string());
            let named = |m: String| {
                if several {
                    Error::Query(format!("query {id}: {m}"))
                } else {
                    Error::Query(m)
                }
            };
            let mut parsed = Parser::new(&dialect)
                .with_recursion_limit(MAX_NESTING)
                .with_tokens_with_locations(tokens)
                .parse_statements()
                .map_err(|e| named(parser_error(e)))?;
            match parsed.len() {
                1 => statements.push((id, parsed.swap_remove(0))),
                n => {
                    return Err(named(format!(
                        "SQL: {n} statements where one was expected (separate them with `;`)"
                    )))
                }
            }
        }
        if statements.is_empty() {
            return Err(Error::Query("SQL: no statement".into()));
        }
        Ok(Script { statements })
    }

    /// How many statements.
    pub fn len(&self) -> usize {
        self.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// The statements' names, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.statements.iter().map(|(id, _)| id.as_str())
    }

    /// Every statement as a query, its table and column names resolved by `tables`;
    /// fails at the first that is outside the family or names what is not there (naming
    /// the statement when there are several).
    pub fn queries(&self, tables: Tables<'_>) -> Result<Vec<Query>> {
        self.queries_with(tables, &|_| None)
    }

    /// [`Script::queries`], a name that is no table resolved by `synonym` (another name
    /// of a table, as [`crate::Database::synonym`] gives it).
    pub fn queries_with(&self, tables: Tables<'_>, synonym: Synonyms<'_>) -> Result<Vec<Query>> {
        let several = self.statements.len() > 1;
        self.statements
            .iter()
            .map(|(id, stmt)| {
                translate::translate(stmt, id, tables, synonym).map_err(|e| match e {
                    Error::Query(m) if several => Error::Query(format!("query {id}: {m}")),
                    e => e,
                })
            })
            .collect()
    }
}

/// Parses `text` (one `SELECT`) into a query named `id`.
pub fn parse_sql(text: &str, id: &str, tables: Tables<'_>) -> Result<Query> {
    let script = Script::parse(text)?;
    match script.statements.as_slice() {
        [(_, stmt)] => translate::translate(stmt, id, tables, &|_| None),
        s => Err(Error::Query(format!(
            "SQL: {} statements; give one SELECT",
            s.len()
        ))),
    }
}

/// The tokens of each statement (those between `;`, statements with no token but
/// whitespace and comments left out), with the name a `-- Qx.y` comment among them gives.
/// Fails at the first statement with more than [`MAX_OPERATORS`] operators.
#[allow(clippy::type_complexity)]
fn split(tokens: Vec<TokenWithSpan>) -> Result<Vec<(Option<String>, Vec<TokenWithSpan>)>> {
    let mut out = Vec::new();
    let mut cur: Vec<TokenWithSpan> = Vec::new();
    let (mut name, mut ops, mut content) = (None, 0usize, false);
    for t in tokens {
        match &t.token {
            Token::SemiColon | Token::EOF => {
                if content {
                    out.push((name.take(), std::mem::take(&mut cur)));
                } else {
                    cur.clear();
                }
                (ops, content) = (0, false);
                continue;
            }
            Token::Whitespace(Whitespace::SingleLineComment { comment, prefix }) => {
                if let Some(id) = statement_name(prefix, comment) {
                    name = Some(id);
                }
            }
            Token::Whitespace(_) => {}
            other => {
                content = true;
                if is_operator(other) {
                    ops += 1;
                    if ops > MAX_OPERATORS {
                        return Err(Error::Query(format!(
                            "SQL: statement {} has more than {MAX_OPERATORS} operators and keywords (at line {} column {}); write a long OR of equalities as IN (…)",
                            out.len() + 1,
                            t.span.start.line,
                            t.span.start.column
                        )));
                    }
                }
            }
        }
        cur.push(t);
    }
    if content {
        out.push((name, cur));
    }
    Ok(out)
}

/// `Qx.y` of a comment `-- Qx.y` (digits and dots after the `Q`).
fn statement_name(prefix: &str, comment: &str) -> Option<String> {
    if prefix != "--" {
        return None;
    }
    let id = comment.trim().strip_prefix('Q')?;
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit() || c == '.')).then(|| id.to_string())
}

/// Whether `t` counts against [`MAX_OPERATORS`]: everything but names, the literals of the
/// family and punctuation — so every operator that can chain (`AND`, `OR`, `+`, `=`, `::`,
/// …) and every keyword.
fn is_operator(t: &Token) -> bool {
    !matches!(
        t,
        Token::Word(w) if w.keyword == Keyword::NoKeyword
    ) && !matches!(
        t,
        Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::Comma
            | Token::LParen
            | Token::RParen
            | Token::Period
    )
}

/// A parser error as one line: the recursion limit said in words.
fn parser_error(e: ParserError) -> String {
    match e {
        ParserError::RecursionLimitExceeded => format!(
            "SQL: nested more than {MAX_NESTING} levels deep (parentheses, NOT, unary minus, subqueries)"
        ),
        e => format!("SQL: {e}"),
    }
}

#[cfg(test)]
mod tests;
