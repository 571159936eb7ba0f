/**
 * The SQL text SQLite is given for a statement: every parameter `?` outside
 * quotes and comments written `+?`, which means the same.
 *
 * Why: since SQLite 3.54 a statement whose plan looks at a parameter's value
 * (`LIMIT ?`, and `x = ?` in any join, whose row estimates ask whether the
 * value is 0 or 1) is marked to be re-planned when the parameter is bound
 * again, and better-sqlite3 clears a statement's bindings after every run,
 * which re-plans such a statement on every run: each join Kysely sends was
 * parsed and planned again each time, about as costly as preparing it anew
 * (a status made five such statements; 15 % of its CPU). SQLite looks at a
 * parameter only where it stands bare; `+?` is an expression with the same
 * value, no affinity (a parameter has none either) and the same collation,
 * and an index serves `x = +?` as it serves `x = ?`, so plans are kept and
 * results are the same. The switch meant for this (SQLITE_DBCONFIG_ENABLE_QPSG)
 * is not reachable through better-sqlite3.
 */
export function withUnplannedParameters(text: string): string {
  let out = "";
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      // A quote inside a quoted string is written twice, which this walks over as two strings.
      const end = text.indexOf(close, i + 1);
      i = end === -1 ? text.length : end + 1;
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === "?") {
      out += `${text.slice(from, i)}+`;
      from = i;
      i++;
    } else {
      i++;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}
