// bench/RESULTS.md from one run's measurements.

const fixed = (value, digits = 1) => (value === null || value === undefined || Number.isNaN(value) ? "–" : value.toFixed(digits));
const percent = (ratio) => (ratio === undefined ? "–" : `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)} %`);

function requestTable(rows) {
  const lines = [
    "| scenario | engine | dataset | Kith req/s | p50 ms | p99 ms | CPU ms/req | baseline req/s | Kith / baseline | errors |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    if (row.skipped) {
      lines.push(`| ${row.scenario} | ${row.engine} | ${row.size} | not measured: ${row.skipped} | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${row.scenario} | ${row.engine} | ${row.size} | ${fixed(row.rps, 0)} | ${fixed(row.p50, 2)} | ${fixed(row.p99, 2)} | ${fixed(row.cpuMsPerRequest, 2)} | ${fixed(row.baselineRps, 0)} | ${percent(row.ratio)} | ${row.failures || ""} |`,
    );
  }
  return lines.join("\n");
}

function scalingTable(rows) {
  const sizes = [...new Set(rows.map((row) => row.size))];
  const scenarios = [...new Set(rows.filter((row) => !row.skipped).map((row) => `${row.scenario} | ${row.engine}`))];
  if (sizes.length < 2) return "One dataset size in this run: no scaling to show (run without `--quick`).";
  const lines = [
    `| scenario | engine | ${sizes.map((size) => `p50 / p99 ms, ${size}`).join(" | ")} |`,
    `|---|---|${sizes.map(() => "---:").join("|")}|`,
  ];
  for (const key of scenarios) {
    const cells = sizes.map((size) => {
      const row = rows.find((candidate) => `${candidate.scenario} | ${candidate.engine}` === key && candidate.size === size);
      return row && !row.skipped ? `${fixed(row.p50, 2)} / ${fixed(row.p99, 2)}` : "–";
    });
    lines.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

export function report({ results, machine, quick, connections, durationMs, reading }) {
  const processRows = results.process.map(
    (p) => `| ${p.engine} | ${p.size} | ${fixed(p.coldStartMs, 0)} | ${fixed(p.idleRssMb, 0)} | ${fixed(p.peakRssMb, 0)} |`,
  );
  const probeRows = results.probes.map((p) => `| ${p.name} | ${p.engine} | ${p.size} | ${p.summary} |`);
  return `# Benchmark results

Measured ${results.startedAt.toISOString().slice(0, 10)} by \`pnpm bench${quick ? " --quick" : ""}\` on ${machine.cpu} (${machine.cores} cores), ${machine.memoryGb.toFixed(0)} GB, ${machine.os}, Node ${machine.node}.
Each request scenario ran ${durationMs / 1000} s after a warm-up, with ${connections} keep-alive connections from a separate load-generator process,
first against Kith (\`kith serve\`, its own process) and then against a bare node:http server answering the same bytes from memory
(the baseline), in the same run. CPU time is the server process's user + system time divided by the requests it answered.

## Requests

${requestTable(results.rows)}

## Fan-out and streaming

| probe | engine | dataset | result |
|---|---|---|---|
${probeRows.join("\n")}

## Process

| engine | dataset | cold start ms | idle RSS MB | peak RSS MB |
|---|---|---:|---:|---:|
${processRows.join("\n")}

Cold start is from spawning \`kith serve\` to its first \`/health\` answer, on the seeded database (migrations already applied).

## Scaling from dataset to dataset

${scalingTable(results.rows)}

${reading}
`;
}
