import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStorageContract } from "@kith/core/testing";
import { afterAll } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

describeStorageContract("sqlite :memory:", () => createSqliteStorage({ filename: ":memory:" }));

const dir = mkdtempSync(join(tmpdir(), "kith-sqlite-"));
let counter = 0;
describeStorageContract("sqlite file (WAL)", () => createSqliteStorage({ filename: join(dir, `db-${++counter}.sqlite`) }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
