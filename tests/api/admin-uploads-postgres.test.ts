/**
 * The upload queries on PostgreSQL: sums and counts cast to bigint, the tag
 * search on jsonb, the queue sort with nulls last, the quota held under
 * concurrent uploads, the migration 0007 tables.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestKith, type TestUser, createTestKith, eventually } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { giveGrants } from "../support/roles.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";
import { makePng } from "../support/media-files.js";

describeIfPostgres("uploads on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let kith: TestKith;
  let admin: TestUser;
  let alice: TestUser;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    kith = await createTestKith({ storage: () => createPostgresStorage({ connectionString: database.url, max: 2 }) });
    admin = await kith.createUser("moderator");
    await giveGrants(kith, admin.account.id, [{ resource: "Uploads", access: ["Read"], scope: "global" }]);
    alice = await kith.createUser("alice");
  });
  afterAll(async () => {
    await kith?.close();
    await database?.drop();
  });

  const get = async <T>(path: string): Promise<T> => {
    const response = await kith.request("GET", path, { token: admin.token });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };

  it("uploads, processes, reports storage, searches by tags, sorts queues and shows logs", async () => {
    const ids: string[] = [];
    for (const tags of [["Avatar"], ["Post", "Header"]]) {
      const created = await kith.request("POST", "/api/v1/uploads", { token: alice.token, json: { type: "IMAGE", tags } });
      const { upload, uploadUrl } = (await created.json()) as { upload: { id: string }; uploadUrl: string };
      const url = new URL(uploadUrl);
      const put = await kith.request("PUT", `${url.pathname}${url.search}`, {
        token: alice.token,
        body: Buffer.from(await makePng(30, 30)),
      });
      expect(put.status).toBe(202);
      ids.push(upload.id);
    }
    await kith.request("POST", "/api/v1/uploads", { token: alice.token, json: { type: "VIDEO", tags: ["Post"] } });
    expect(await get("/api/v1/admin/uploads/jobs/summary")).toMatchObject({ queues: { submitted: 2 }, byState: { awaiting_upload: 1 } });

    await kith.start();
    await eventually(async () =>
      expect((await get<unknown[]>("/api/v1/admin/uploads/jobs/queue/completed?sort=processingDuration")).length).toBe(2),
    );
    const storage = await get<{ usedBytes: number; fileCount: number; countsByType: Record<string, number> }>(
      `/api/v1/admin/uploads/storage/${alice.account.id}`,
    );
    expect(storage.fileCount).toBe(3);
    expect(storage.countsByType).toMatchObject({ IMAGE: 2, VIDEO: 1 });
    expect(typeof storage.usedBytes).toBe("number");
    expect(storage.usedBytes).toBeGreaterThan(0);

    const byTag = await get<{ id: string }[]>(`/api/v1/admin/uploads/search?userId=${alice.account.id}&tags=header`);
    expect(byTag.map((item) => item.id)).toEqual([ids[1]]);
    const images = await get<{ id: string }[]>(`/api/v1/admin/uploads/search?userId=${alice.account.id}&type=IMAGE&limit=1`);
    expect(images.map((item) => item.id)).toEqual([ids[1]]);
    const log = await get<{ entries: { step: string }[] }>(`/api/v1/admin/uploads/${ids[0]}/logs`);
    expect(log.entries.map((entry) => entry.step)).toContain("thumbnail");
  });

  it("of concurrent contents that each fit the quota but not together, exactly one is taken", async () => {
    const bob = await kith.createUser("bob");
    const png = await makePng(200, 200);
    await kith.services.media.quotas.setOverride(bob.account.id, { maxBytes: Math.floor(png.byteLength * 1.5), maxFiles: null });
    const urls: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await kith.request("POST", "/api/v1/uploads", { token: bob.token, json: { type: "IMAGE", tags: ["Post"] } });
      urls.push(((await created.json()) as { uploadUrl: string }).uploadUrl);
    }
    const statuses = await Promise.all(
      urls.map(async (uploadUrl) => {
        const url = new URL(uploadUrl);
        return (await kith.request("PUT", `${url.pathname}${url.search}`, { token: bob.token, body: Buffer.from(png) })).status;
      }),
    );
    expect(statuses.sort()).toEqual([202, 422, 422, 422]);
    expect((await get<{ usedBytes: number }>(`/api/v1/admin/uploads/storage/${bob.account.id}`)).usedBytes).toBe(png.byteLength);
  });
});
