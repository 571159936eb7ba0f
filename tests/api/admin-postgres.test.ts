/**
 * The RBAC and account-administration queries on PostgreSQL: list filters
 * (LIKE with escapes, booleans, sub-selects), counts, the sensitized_at
 * column of migration 0004, and deletion with its dependent rows.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestKith, createTestKith } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

describeIfPostgres("administration on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let kith: TestKith;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    kith = await createTestKith({ storage: () => createPostgresStorage({ connectionString: database.url, max: 2 }) });
  });
  afterAll(async () => {
    await kith?.close();
    await database?.drop();
  });

  it("lists, filters, changes and deletes accounts, and manages roles", async () => {
    const owner = await kith.createUser("pg_owner", { role: "Owner" });
    const target = await kith.createUser("pg_target");
    const other = await kith.createUser("pgxtarget");
    const get = async (path: string) => {
      const response = await kith.request("GET", path, { token: owner.token });
      expect(response.status).toBe(200);
      return (await response.json()) as { id: string; sensitized?: boolean }[];
    };

    // `_` is literal in the username filter, not a wildcard.
    expect((await get("/api/v1/admin/accounts?username=pg_t")).map((item) => item.id)).toEqual([target.account.id]);
    expect((await get("/api/v1/admin/accounts?active=true")).map((item) => item.id)).toContain(other.account.id);
    expect(await get("/api/v1/admin/accounts?pending=true")).toEqual([]);

    const sensitive = await kith.request("POST", `/api/v1/admin/accounts/${target.account.id}/action`, {
      token: owner.token,
      json: { type: "sensitive" },
    });
    expect(sensitive.status).toBe(200);
    expect((await get("/api/v1/admin/accounts?sensitized=true")).map((item) => item.id)).toEqual([target.account.id]);
    expect((await get("/api/v2/admin/accounts?permissions=staff")).map((item) => item.id)).toEqual([owner.account.id]);

    const created = await kith.request("POST", "/api/v1/admin/rbac/roles", {
      token: owner.token,
      json: { name: "Readers", scope: "global", permissions: [{ resource: "Users", access: ["Read"] }] },
    });
    expect(created.status).toBe(201);
    const role = (await created.json()) as { roleId: string };
    await kith.request("POST", `/api/v1/admin/rbac/actors/${other.account.id}/roles`, {
      token: owner.token,
      json: { roleId: role.roleId },
    });
    expect((await get(`/api/v2/admin/accounts?role_ids[]=${role.roleId}`)).map((item) => item.id)).toEqual([other.account.id]);
    expect((await kith.request("GET", "/api/v1/admin/accounts", { token: other.token })).status).toBe(200);

    const roles = (await get("/api/v1/admin/rbac/roles")) as unknown as { roleId: string; name: string }[];
    const ownerRole = roles.find((entry) => entry.name === "Owner");
    const last = await kith.request("DELETE", `/api/v1/admin/rbac/actors/${owner.account.id}/roles/${ownerRole?.roleId}`, {
      token: owner.token,
    });
    expect(last.status).toBe(409);

    await kith.request("POST", `/api/v1/admin/accounts/${target.account.id}/action`, { token: owner.token, json: { type: "suspend" } });
    expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: target.token })).status).toBe(401);
    const deleted = await kith.request("DELETE", `/api/v1/admin/accounts/${target.account.id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expect((await kith.request("GET", `/api/v1/admin/accounts/${target.account.id}`, { token: owner.token })).status).toBe(404);
  });
});
