// Reads what bench/lib/statement-counter.mjs writes in the server (KITH_BENCH_STATEMENTS): the running totals of
// the SQLite statements it ran, to report the statements of one unit of work (a request, a stored activity, a
// verified delivery) from the totals before and after a scenario.

import { readFileSync } from "node:fs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's statement totals so far (KITH_BENCH_STATEMENTS), after its next flush; null when it does not count. */
export async function statementTotals(kith) {
  if (!kith.statements) return null;
  await sleep(300);
  try {
    return JSON.parse(readFileSync(kith.statements, "utf8"));
  } catch {
    return {};
  }
}

/** Statements run between two totals, per unit of work: how many, SQLite's time, and the heaviest by time. */
export function statementsPer(before, after, units) {
  if (!before || !after || !units) return null;
  const rows = Object.entries(after)
    .map(([text, { count, us }]) => ({ text, count: count - (before[text]?.count ?? 0), us: us - (before[text]?.us ?? 0) }))
    .filter((row) => row.count > 0)
    .sort((a, b) => b.us - a.us);
  const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
  return {
    perUnit: sum("count") / units,
    msPerUnit: sum("us") / 1000 / units,
    top: rows.slice(0, 12).map((row) => ({ perUnit: row.count / units, msPerUnit: row.us / 1000 / units, text: row.text.slice(0, 120) })),
  };
}

/** Log lines for `statementsPer`. */
export function describeStatements(label, statements) {
  if (!statements) return [];
  return [
    `  ${label}: ${statements.perUnit.toFixed(1)} statements, ${statements.msPerUnit.toFixed(2)} ms in SQLite`,
    ...statements.top
      .filter((row) => row.perUnit >= 0.005)
      .map((row) => `    ${row.perUnit.toFixed(2).padStart(6)} × ${row.msPerUnit.toFixed(3)} ms  ${row.text}`),
  ];
}
