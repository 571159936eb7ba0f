// CPU time of reading an incoming activity: core's compact reader
// (readCompactActivity) against Fedify's Activity.fromJsonLd, for the inbox
// benchmark's two documents (bench/lib/inbox-load.mjs) and a Mastodon
// Create(Note) with its context, a hashtag and a replies collection. Runs on
// the built packages: `pnpm -s --filter @kith/core run build` first.
//
//   KITH_BENCH_DOCUMENTS=2000   distinct documents of each kind
//
// A measurement, not a test: numbers depend on the machine and its load.

import { importBuilt } from "./lib/built.mjs";

// Its own entry point: the main one does not load Fedify, which a server loads on its first federation use.
const core = await importBuilt("@kith/core/compact-activity");
// Fedify's vocabulary as core's testing entry gives it (Fedify is core's dependency, not the workspace's), and a loader
// that serves Fedify's preloaded contexts and refuses the rest.
const { vocab, preloadedContextLoader: loader, MASTODON_CONTEXT } = await importBuilt("@kith/core/testing");

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const actor = "https://remote-1.bench.example/users/actor-1";
const alice = "https://mastodon.example/users/alice";
const published = new Date().toISOString();

const kinds = {
  "benchmark Create(Note)": (i) => ({
    "@context": AS,
    id: `${actor}/bench-activities/t-${i}`,
    type: "Create",
    actor,
    published,
    to: [PUBLIC],
    cc: [`${actor}/followers`],
    object: {
      id: `${actor}/bench-notes/t-${i}`,
      type: "Note",
      attributedTo: actor,
      content: `<p>Inbox benchmark note ${i} from a remote actor, with a few words of text.</p>`,
      published,
      to: [PUBLIC],
      cc: [`${actor}/followers`],
    },
  }),
  "benchmark Like": (i) => ({
    "@context": AS,
    id: `${actor}/bench-likes/t-${i}`,
    type: "Like",
    actor,
    object: `https://kith.example/posts/${i}`,
  }),
  "Mastodon Create(Note)": (i) => ({
    "@context": structuredClone(MASTODON_CONTEXT),
    id: `${alice}/statuses/${i}/activity`,
    type: "Create",
    actor: alice,
    published,
    to: [PUBLIC],
    cc: [`${alice}/followers`],
    object: {
      id: `${alice}/statuses/${i}`,
      type: "Note",
      summary: null,
      inReplyTo: null,
      published,
      url: `https://mastodon.example/@alice/${i}`,
      attributedTo: alice,
      to: [PUBLIC],
      cc: [`${alice}/followers`],
      sensitive: false,
      atomUri: `${alice}/statuses/${i}`,
      inReplyToAtomUri: null,
      conversation: `tag:mastodon.example,2026:objectId=${i}:objectType=Conversation`,
      content: "<p>Hello world</p>",
      contentMap: { en: "<p>Hello world</p>" },
      attachment: [],
      tag: [{ type: "Hashtag", href: "https://mastodon.example/tags/kith", name: "#kith" }],
      replies: {
        id: `${alice}/statuses/${i}/replies`,
        type: "Collection",
        first: {
          type: "CollectionPage",
          next: `${alice}/statuses/${i}/replies?page=true`,
          partOf: `${alice}/statuses/${i}/replies`,
          items: [],
        },
      },
    },
  }),
};

const count = Number(process.env.KITH_BENCH_DOCUMENTS ?? 2000);
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

for (const [name, make] of Object.entries(kinds)) {
  const documents = Array.from({ length: count }, (_, i) => make(i));
  if (documents.some((document) => core.readCompactActivity(document) === null)) throw new Error(`${name}: refused by the reader`);
  let started = cpuMicros();
  for (let round = 0; round < 5; round++) for (const document of documents) core.readCompactActivity(document);
  const compact = (cpuMicros() - started) / (5 * count);
  const parsed = Math.min(count, 1000);
  for (let i = 0; i < 100; i++) await vocab.Activity.fromJsonLd(documents[i], { documentLoader: loader, contextLoader: loader });
  started = cpuMicros();
  for (let i = 0; i < parsed; i++) await vocab.Activity.fromJsonLd(documents[i], { documentLoader: loader, contextLoader: loader });
  const fedifyMicros = (cpuMicros() - started) / parsed;
  console.log(`${name}: readCompactActivity ${compact.toFixed(1)} µs, Activity.fromJsonLd ${fedifyMicros.toFixed(0)} µs of CPU a document`);
}
