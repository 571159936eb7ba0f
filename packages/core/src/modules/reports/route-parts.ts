import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { holdsPermission } from "../../domain/permissions.js";
import { fromQuery, permission } from "../../platform/http/access.js";
import type { AdminViewer } from "./report-views.js";
import { moduleRoute } from "../module.js";
import type { ReportsServices } from "./reports-services.js";
import { M2, MASTODON_MANAGE, R4, SERVER_READ } from "./report-rules.js";

/** Declares a route of the reports module. */
export const route = moduleRoute<ReportsServices>();

export const TAGS = ["reports"];
export const ADMIN_READ_SCOPES = ["admin:read", "admin:read:reports"];
export const ADMIN_WRITE_SCOPES = ["admin:write", "admin:write:reports"];
export const REPORT_SCOPES = ["write", "write:reports"];

/** The `scope` query parameter: a group's id selects that group's scope, where its GroupReports.* grants count. */
const inScope = { group: fromQuery("scope") };
export const readInScope = permission(R4, inScope);
export const manageInScope = permission(M2, inScope);
export const readServer = permission(SERVER_READ);
export const manageMastodon = permission(MASTODON_MANAGE);

export const ScopeQuery = z.object({
  scope: z.string().min(1).max(64).optional().describe("A group's id: that group's scope. Omitted: server scope, which holds every report"),
});

export const ReportParams = z.object({ reportId: z.string().min(1).max(64) });

/** The caller as an Admin::Report's reader: whether it may read accounts' private details (globally). */
export async function adminViewerOf(caller: Caller): Promise<AdminViewer> {
  const id = userOf(caller);
  const grants = caller.kind === "user" ? await caller.grants() : [];
  return { id, readsAccounts: holdsPermission(grants, "Users.Read") || holdsPermission(grants, "Users.Manage") };
}

/** The signed-in account. */
export function userOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}
