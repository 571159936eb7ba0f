import { describe, expect, it } from "vitest";
import * as root from "./index.js";
import * as testing from "./testing/index.js";

/**
 * The values `@kith/core` exports. A name added here is a promise to
 * embedders and adapter authors: add one deliberately, not because a test or
 * an adapter found it convenient (tests reach internals by path).
 */
const ROOT_VALUES = [
  "ACCESS_TYPES",
  "ACCOUNT_STATES",
  "ALL_SCOPES",
  "AttemptFailures",
  "BUILT_IN_ROLES",
  "DEFAULT_INSTANCE_SETTINGS",
  "DEFAULT_LIMITS",
  "DeterministicAiProvider",
  "GRANULAR_SCOPES",
  "GUEST",
  "HttpSmsSender",
  "ID_PREFIXES",
  "INSTANCE_SETTING_KEYS",
  "InvalidBlobKeyError",
  "KithError",
  "KyselyStorage",
  "LocalDirectoryBlobStore",
  "MailOutbox",
  "MemoryBlobStore",
  "MemoryPubSub",
  "MemoryQueue",
  "MonotonicIdGenerator",
  "NOT_READY_DELAY_MS",
  "OutgoingFetchError",
  "PendingWork",
  "REGISTRATION_MODES",
  "RESOURCES",
  "Reply",
  "SmsOutbox",
  "SmtpMailer",
  "SqlQueue",
  "TOP_LEVEL_SCOPES",
  "USERNAME_PATTERN",
  "Username",
  "acctKey",
  "all",
  "any",
  "anyToken",
  "assertValidBlobKey",
  "authenticated",
  "backoffDelayMs",
  "blobKeyProblem",
  "canSignIn",
  "cannotRunYet",
  "coreMigrations",
  "createKith",
  "createSafeFetch",
  "describeAccess",
  "describeRule",
  "errorCatalog",
  "errorMessageOf",
  "fromBody",
  "fromParam",
  "fromQuery",
  "getLogger",
  "grantsSatisfying",
  "holdsPermission",
  "idTime",
  "instanceSettingsSchema",
  "isId",
  "isKithError",
  "isKnownScope",
  "jobNotReady",
  "lowestIdAt",
  "migrationStatements",
  "parsePermissionName",
  "parseScopes",
  "permission",
  "permissionNames",
  "publicAccess",
  "requiresCredentials",
  "route",
  "ruleHolds",
  "scopesAllow",
  "signedOut",
  "statusOf",
  "systemClock",
  "systemRandom",
];

describe("the public surface of @kith/core", () => {
  it("exports from its root exactly the values listed", () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_VALUES].sort());
  });

  it("keeps internals out of the root: caches, single migrations, Zod", () => {
    for (const internal of ["BoundedMap", "socialMigration", "seedBuiltInRoles", "applyMigrations", "z"]) {
      expect(Object.keys(root), internal).not.toContain(internal);
    }
  });

  it("gives tests their helpers from @kith/core/testing", () => {
    expect(Object.keys(testing)).toEqual(expect.arrayContaining(["FakeClock", "describeStorageContract", "createTestKith"]));
  });
});
