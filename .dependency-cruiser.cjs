// The import rules between @kith/core's layers, each layer importing only those below it:
//
//   ports, domain  <-  platform  <-  mastodon  <-  features
//
// - ports/: interfaces and small value types; they import only other ports and domain/.
// - domain/: ids, errors, permissions, pure rules; imports only domain/.
// - platform/: HTTP, storage and queue kernels, Fedify wiring; knows no feature and no Mastodon entity.
// - mastodon/: Mastodon's entities and their rendering; knows no feature.
// - features: modules/<name>/, one folder a feature (its routes, services, stores, inbox and outbox handlers),
//   and the files at modules/ that compose them. A module imports another only through its index.ts; the social
//   core's folders (listed below) still import each other directly, until each is given an index.ts of its own.
//
// Run by `pnpm lint`. A test (tests/lint/layer-rules.test.ts) shows a crossing import failing it.
//
// A test file beside lower-layer code may import higher layers to check the code against them (the router's
// test walks the real route table), so the layer rules look at the importing file only when it is not a test.

const core = "^packages/core/src/";
const notTest = "\\.test\\.ts$";

/** Code of a feature: the modules, what composes them, and the instance. */
const features = [`${core}modules/`, `${core}kith\\.ts$`];

/**
 * The social core's folders under modules/: moved there from the layer folders they grew in, they still import
 * each other's files directly. Each leaves this list (may only get shorter) once the others reach it through an
 * index.ts of its own; every module not listed is held to the index rule already.
 */
const socialCore = [
  "accounts",
  "admin-accounts",
  "auth",
  "conversations",
  "credentials",
  "domain-policy",
  "emojis",
  "federation",
  "filters",
  "instance",
  "jobs",
  "lists",
  "markers",
  "media",
  "notifications",
  "passkeys",
  "registration",
  "relationships",
  "roles",
  "search",
  "settings",
  "statuses",
  "streaming",
  "tags",
  "timelines",
];
const socialCoreFolders = `${core}modules/(${socialCore.join("|")})/`;
/** A module's public face. */
const moduleIndex = `${core}modules/[^/]+/index\\.ts$`;
/** Files that speak HTTP: routes, their helpers, and the pages and responses only routes send. */
const httpFiles = `${core}modules/[^/]+/(routes|[a-z-]+-routes|[a-z-]+-route-helpers|oauth-pages|oauth-error-responses|passkey-script|reference-page|media-file-response)\\.ts$`;

/**
 * Known crossings, each named by its importing file and what it imports: the list may only get shorter. Such a
 * file is held to the rule for every other import it makes (see `known` below), so no new crossing hides behind
 * an old one. Remove an entry once its import is gone.
 */
const knownViolations = {
  "ports-import-only-ports-and-domain": [],
  "platform-imports-no-feature": [],
  "mastodon-imports-no-feature": [],
  // The cycles the crossings above close (each named by the lower-layer file it starts from).
  "no-cycle-across-layers": [],
};

/** A file of a known crossing is held to the rule for everything but the import it is known for. */
function known(rule, to) {
  return knownViolations[rule].map(({ from, imports }) => ({
    name: rule,
    comment: `Known crossing in ${from}: only ${imports.join(", ")} may stay, until it is fixed.`,
    severity: "error",
    from: { path: `${core}${from}$` },
    to: { ...to, pathNot: [...(to.pathNot ?? []), ...imports.map((path) => `${core}${path}$`)] },
  }));
}

/** The files of a rule's known crossings, left out of the rule itself (`known` checks them). */
function exempt(rule) {
  return knownViolations[rule].map(({ from }) => `${core}${from}$`);
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "ports-import-only-ports-and-domain",
      comment: "A port is an interface: it names no implementation, so adapters and features may all import it.",
      severity: "error",
      from: { path: `${core}ports/`, pathNot: [notTest, ...exempt("ports-import-only-ports-and-domain")] },
      to: { path: core, pathNot: [`${core}ports/`, `${core}domain/`] },
    },
    ...known("ports-import-only-ports-and-domain", { path: core, pathNot: [`${core}ports/`, `${core}domain/`] }),
    {
      name: "domain-imports-only-domain",
      comment: "Domain rules are pure and shared by every layer above them.",
      severity: "error",
      from: { path: `${core}domain/`, pathNot: notTest },
      to: { path: core, pathNot: `${core}domain/` },
    },
    {
      name: "platform-imports-no-feature",
      comment: "The platform knows no feature (nor Mastodon's entities): features plug into it, never the reverse.",
      severity: "error",
      from: { path: `${core}platform/`, pathNot: [notTest, ...exempt("platform-imports-no-feature")] },
      to: { path: [...features, `${core}mastodon/`] },
    },
    ...known("platform-imports-no-feature", { path: [...features, `${core}mastodon/`] }),
    {
      name: "mastodon-imports-no-feature",
      comment: "Mastodon's entities and rendering are shared by routes, services and federation, so they import none of them.",
      severity: "error",
      from: { path: `${core}mastodon/`, pathNot: [notTest, ...exempt("mastodon-imports-no-feature")] },
      to: { path: features },
    },
    ...known("mastodon-imports-no-feature", { path: features }),
    {
      name: "modules-through-their-index",
      comment: "A module is used by others only through what its index.ts declares.",
      severity: "error",
      from: { path: `${core}modules/([^/]+)/`, pathNot: [notTest, socialCoreFolders] },
      to: { path: `${core}modules/[^/]+/`, pathNot: [`${core}modules/$1/`, moduleIndex] },
    },
    {
      name: "modules-used-through-their-index",
      comment: "Outside a module (the social core, the composition), a module that has an index.ts is reached through it.",
      severity: "error",
      from: { path: `${core}(?!modules/[^/]+/)|${socialCoreFolders}`, pathNot: notTest },
      to: { path: `${core}modules/[^/]+/`, pathNot: [socialCoreFolders, moduleIndex] },
    },
    {
      name: "no-cycle-across-layers",
      comment: "A cycle that leaves a lower layer and comes back means a lower layer depends on a higher one.",
      severity: "error",
      from: { path: `${core}(ports|domain|platform|mastodon)/`, pathNot: [notTest, ...exempt("no-cycle-across-layers")] },
      to: { circular: true, via: { pathNot: `${core}$1/` } },
    },
    {
      name: "stores-import-no-services",
      comment: "Stores hold the SQL that services call; a store imports only other stores, never what calls it.",
      severity: "error",
      from: { path: `${core}modules/[^/]+/[^/]+-store\\.ts$`, pathNot: notTest },
      to: { path: `${core}modules/`, pathNot: [`-store\\.ts$`, moduleIndex] },
    },
    {
      name: "services-and-federation-import-no-routes",
      comment: "Services, stores and federation handlers never see HTTP routes; what both need sits in mastodon/ or platform/.",
      severity: "error",
      from: { path: `${core}modules/[^/]+/`, pathNot: [notTest, httpFiles, moduleIndex] },
      to: { path: httpFiles },
    },
  ],
  options: {
    includeOnly: core,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "packages/core/tsconfig.json" },
    enhancedResolveOptions: {
      conditionNames: ["source", "import", "default"],
    },
    exclude: { path: ["node_modules", "/dist/"] },
  },
};
