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
  "ACCOUNTS_PAGE",
  "ACCOUNT_STATES",
  "ALL_SCOPES",
  "AttemptFailures",
  "BUILT_IN_ROLES",
  "GROUP_BUILT_IN_ROLES",
  "DEFAULT_INSTANCE_SETTINGS",
  "DEFAULT_LIMITS",
  "DEFAULT_PAGE",
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
  "POSTS_PAGE",
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
  "afterCommit",
  "all",
  "any",
  "anyToken",
  "assertValidBlobKey",
  "authenticated",
  "backoffDelayMs",
  "blobKeyProblem",
  "canSignIn",
  "cannotRunYet",
  "clampLimit",
  "coreMigrations",
  "createKith",
  "createSafeFetch",
  "cursorPageLinks",
  "cursorPageQuery",
  "customEmojisModule",
  "defaultModules",
  "defineErrorCodes",
  "defineIdKinds",
  "defineModule",
  "describeAccess",
  "describeRule",
  "errorCatalog",
  "errorMessageOf",
  "fromBody",
  "fromParam",
  "fromQuery",
  "getLogger",
  "grantsSatisfying",
  "groupsModule",
  "holdsPermission",
  "idPageLinks",
  "idPageQuery",
  "idTime",
  "instanceSettingsSchema",
  "isGroupAccountId",
  "isId",
  "isKithError",
  "isKnownScope",
  "jobNotReady",
  "lowestIdAt",
  "migrationStatements",
  "migrationsWithModules",
  "moduleRoute",
  "pageRequest",
  "pagedReply",
  "parsePermissionName",
  "parseScopes",
  "permission",
  "permissionNames",
  "preferencesModule",
  "publicAccess",
  "pushModule",
  "relaysModule",
  "reportsModule",
  "requiresCredentials",
  "route",
  "ruleHolds",
  "scopesAllow",
  "signedOut",
  "statusOf",
  "suggestionsModule",
  "systemClock",
  "systemRandom",
  "transactionWithCommitHooks",
  "trendsModule",
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
