// bench/RESULTS.md from one run's measurements.

const fixed = (value, digits = 1) => (value === null || value === undefined || Number.isNaN(value) ? "–" : value.toFixed(digits));
/** Young and full collections' pause a unit of work, and the longest pause: "0.12 / 0.05 (7.3)". */
const gcCell = (gc) => (gc ? `${fixed(gc.young.msPerUnit, 2)} / ${fixed(gc.full.msPerUnit, 2)} (${fixed(gc.longestMs, 1)})` : "–");
const percent = (ratio) => (ratio === undefined ? "–" : `${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)} %`);

function requestTable(rows) {
  const lines = [
    "| scenario | engine | dataset | Kith req/s | p50 ms | p99 ms | CPU ms/req | waiting for a core ms/req | GC pauses ms/req, young / full (longest) | peak RSS MB | baseline req/s | baseline p50 / p99 ms | Kith / baseline | errors |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    if (row.skipped) {
      lines.push(`| ${row.scenario} | ${row.engine} | ${row.size} | not measured: ${row.skipped} | | | | | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${row.scenario} | ${row.engine} | ${row.size} | ${fixed(row.rps, 0)} | ${fixed(row.p50, 2)} | ${fixed(row.p99, 2)} | ${fixed(row.cpuMsPerRequest, 2)} | ${fixed(row.waitMsPerRequest, 2)} | ${gcCell(row.gc)} | ${fixed(row.peakRssMb, 0)} | ${fixed(row.baselineRps, 0)} | ${fixed(row.baselineP50, 2)} / ${fixed(row.baselineP99, 2)} | ${percent(row.ratio)} | ${row.failures || ""} |`,
    );
  }
  return lines.join("\n");
}

function scalingTable(rows) {
  const sizes = [...new Set(rows.map((row) => row.size))];
  // A scenario named for a count the small dataset cannot reach (a reader following 2000) is followed by its series.
  const keyOf = (row) => `${row.series ?? row.scenario} | ${row.engine}`;
  const scenarios = [...new Set(rows.filter((row) => !row.skipped).map(keyOf))];
  if (sizes.length < 2) return "One dataset size in this run: no scaling to show (run without `--quick`).";
  const lines = [
    `| scenario | engine | ${sizes.map((size) => `p50 / p99 ms, ${size}`).join(" | ")} |`,
    `|---|---|${sizes.map(() => "---:").join("|")}|`,
  ];
  for (const key of scenarios) {
    const cells = sizes.map((size) => {
      const row = rows.find((candidate) => keyOf(candidate) === key && candidate.size === size);
      return row && !row.skipped ? `${fixed(row.p50, 2)} / ${fixed(row.p99, 2)}` : "–";
    });
    lines.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

function inboxTable(rows) {
  const lines = [
    "| engine | dataset | Kith stored/s | p50 ms | p99 ms | CPU ms/activity | GC pauses ms/activity, young / full (longest) | baseline verified/s | baseline p50 / p99 ms | baseline CPU ms/activity | Kith / baseline | what happened |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    if (row.skipped) {
      lines.push(`| ${row.engine} | ${row.size} | not measured: ${row.skipped} | | | | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${row.engine} | ${row.size} | ${fixed(row.rate, 0)} | ${fixed(row.p50, 2)} | ${fixed(row.p99, 2)} | ${fixed(row.cpuMsPerActivity, 2)} | ${gcCell(row.gc)} | ${fixed(row.baselineRate, 0)} | ${fixed(row.baselineP50, 2)} / ${fixed(row.baselineP99, 2)} | ${fixed(row.baselineCpuMsPerActivity, 2)} | ${percent(row.ratio)} | ${row.detail} |`,
    );
  }
  return lines.join("\n");
}

function deliveryTable(rows) {
  const lines = [
    "| engine | dataset | posting request ms | until every host verified, ms | Kith CPU ms | baseline ms | baseline CPU ms | Kith / baseline (time) | what happened |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    if (row.skipped) {
      lines.push(`| ${row.engine} | ${row.size} | not measured: ${row.skipped} | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${row.engine} | ${row.size} | ${fixed(row.requestMs, 1)} | ${fixed(row.kithMs, 0)} | ${fixed(row.cpuMs, 0)} | ${fixed(row.baselineMs, 0)} | ${fixed(row.baselineCpuMs, 0)} | ${row.ratio ? `${row.ratio.toFixed(1)}×` : "–"} | ${row.detail} |`,
    );
  }
  return lines.join("\n");
}

/** The scenarios measured their own way (fan-out, streaming, inbox, delivery), by dataset. */
function otherScalingTable(results) {
  const sizes = [...new Set(results.process.map((p) => p.size))];
  if (sizes.length < 2) return "";
  const series = new Map();
  const add = (name, engine, size, value) => {
    const key = `${name} | ${engine}`;
    if (!series.has(key)) series.set(key, {});
    series.get(key)[size] = value;
  };
  for (const probe of results.probes) {
    if (probe.completeMs !== undefined)
      add(
        `${probe.series}: request / all home feeds, ms (baseline)`,
        probe.engine,
        probe.size,
        `${fixed(probe.requestMs, 0)} / ${fixed(probe.completeMs, 0)} (${fixed(probe.baselineMs, 0)})`,
      );
    if (probe.doneMs !== undefined)
      add(
        `${probe.series}: all clients updated, ms (baseline)`,
        probe.engine,
        probe.size,
        `${fixed(probe.doneMs, 0)} (${fixed(probe.baselineMs, 0)})`,
      );
  }
  for (const row of results.federation.filter((candidate) => !candidate.skipped)) {
    if (row.kind === "inbox")
      add("inbox: stored activities/s (baseline)", row.engine, row.size, `${fixed(row.rate, 0)} (${fixed(row.baselineRate, 0)})`);
    if (row.kind === "delivery")
      add("delivery to 100 hosts: ms (baseline)", row.engine, row.size, `${fixed(row.kithMs, 0)} (${fixed(row.baselineMs, 0)})`);
  }
  const lines = [`| scenario | engine | ${sizes.join(" | ")} |`, `|---|---|${sizes.map(() => "---:").join("|")}|`];
  for (const [key, values] of series) lines.push(`| ${key} | ${sizes.map((size) => values[size] ?? "–").join(" | ")} |`);
  return lines.join("\n");
}

export function report({ results, machine, quick, connections, durationMs, reading }) {
  const processRows = results.process.map(
    (p) =>
      `| ${p.engine} | ${p.size} | ${p.cached ? "from cache" : fixed(p.seedSeconds, 1)} | ${fixed(p.coldStartMs, 0)} | ${fixed(p.idleRssMb, 0)} | ${fixed(p.peakRssMb, 0)} |`,
  );
  const probeRows = results.probes.map((p) =>
    p.ms === undefined
      ? `| ${p.name} | ${p.engine} | ${p.size} | – | – | – | ${p.summary} |`
      : `| ${p.name} | ${p.engine} | ${p.size} | ${fixed(p.ms, 0)} | ${fixed(p.baselineMs, 1)} | ${p.baselineMs ? `${fixed(p.ms / p.baselineMs, 1)}×` : "–"} | ${p.detail} |`,
  );
  return `# Benchmark results

Measured ${results.startedAt.toISOString().slice(0, 10)} by \`pnpm bench${quick ? " --quick" : ""}\` on ${machine.cpu} (${machine.cores} cores), ${machine.memoryGb.toFixed(0)} GB, ${machine.os}, Node ${machine.node}.
Each request scenario ran ${durationMs / 1000} s after a warm-up (a longer one for the first after the server's start, which
warms the server too), with ${connections} keep-alive connections from a separate load-generator process, against Kith
(\`kith serve\`, its own process) and against a bare node:http server answering the same bytes from memory (the baseline), in
the same run and in turns: three windows of each, one after the other, so that the machine's drift in speed (tens of percent
within a minute here) falls on both alike. CPU time is the server process's user + system time from its first
measured window on (after the warm-up) divided by the requests it answered; the wait for a core is the time its main thread, with
work to do, waited while other processes had the cores (Linux's scheduler statistics), divided likewise; GC pauses are the
server's main-thread garbage-collection pauses over the whole scenario (its warm-up too), young (scavenges) and full apart,
divided by every request it answered, and the longest single pause; peak RSS is the server's highest resident memory during
the scenario.

## Requests

${requestTable(results.rows)}

## Fan-out and streaming

Posting to many local followers: from sending the post until every follower's home feed had it (the benchmark counts the
feed's rows every 5 ms), the request included; the baseline is the same rows written by one \`INSERT ... SELECT\` from the
benchmark's own connection to the same database (Kith's taken out first; no mutes, blocks, lists or streams looked at),
and the request's is a bare server answering Kith's answer. Streaming: 1 000 server-sent-event connections on the public
stream, from sending a post until every client had read its update; the baseline is a bare node:http server holding as
many streams that answers the same post with Kith's answer and writes Kith's event, the same bytes, to each. Each probe
posts three times and reports the medians.

| probe | engine | dataset | Kith ms | baseline ms | Kith / baseline | what happened |
|---|---|---|---:|---:|---:|---|
${probeRows.join("\n")}

## Federation

Inbox: signed activities (draft-cavage, RSA-SHA256; half Create(Note), half Like of a local post) from 100 remote actors on
10 hosts (loopback ports served by a process of their own), signed before the clock starts and POSTed to the shared inbox
by a separate process over ${connections} connections after a warm-up in which every actor sent five. Kith's rate counts
what landed in the database (statuses and favourites), from the first request to the count that found the last row
(a count reads only rows made since the run began); the baseline is a bare
node:http server checking digest and signature with node:crypto, keys in memory, on the same requests.

${inboxTable(results.federation.filter((row) => row.kind === "inbox"))}

Delivery: one public post by a local account followed by 1 000 remote accounts, 10 on each of 100 hosts (loopback ports of
one process, each a separate origin), from the request until every host has verified a delivery (Fedify's verifyRequest,
the sender's key cached as a server that had seen it before would have it). The baseline is a bare script signing the
same body with node:crypto and POSTing it to the 100 shared inboxes at once, until the same hosts verified it; its CPU
is the script's own while sending (signing and HTTP), Kith's the server's from the request to the last verification.
Kith posts several times in a row and the baseline, one process, delivers as many rounds: each reports its median
round, so both are warm (code compiled, keep-alive connections to the hosts open) and a server's first, cold post does
not stand for its usual cost. Both sign with RSA keys of the size given in the last column.

${deliveryTable(results.federation.filter((row) => row.kind === "delivery"))}

## Process

| engine | dataset | seeding s | cold start ms | idle RSS MB | peak RSS MB |
|---|---|---:|---:|---:|---:|
${processRows.join("\n")}

Seeding is the benchmark's own bulk load of the dataset (multi-row inserts in transactions), not a Kith measurement;
SQLite datasets are cached in \`bench/.cache\` by size, generator and schema, so a rerun copies them instead.
Cold start is from spawning \`kith serve\` to its first \`/health\` answer, on the seeded database (migrations already applied).

## Scaling from dataset to dataset

${scalingTable(results.rows)}

${otherScalingTable(results)}

${reading}
`;
}
