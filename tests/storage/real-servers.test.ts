import { connect } from "node:net";
import { createPostgresStorage } from "@kith/storage-postgres";
import { expect, it } from "vitest";
import { describeIfPostgres, describeIfRedis, freshPostgresDatabase, postgresUrl, redisUrl } from "../support/real-servers.js";

/** Sends one inline command and resolves with the first reply line. */
function redisCommand(url: string, command: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(`${command}\r\n`));
    let reply = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error("Redis did not answer")));
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) {
        socket.end();
        resolve(reply.slice(0, reply.indexOf("\r\n")));
      }
    });
  });
}

describeIfPostgres("the test PostgreSQL server", () => {
  it("answers on the provided URL", async () => {
    const storage = createPostgresStorage({ connectionString: postgresUrl() ?? "", max: 1 });
    try {
      await expect(storage.ping()).resolves.toBeUndefined();
      expect((await storage.info()).version).toMatch(/^\d+\.\d+/);
    } finally {
      await storage.close();
    }
  });

  it("gives each caller a database of its own, and drops it", async () => {
    const [a, b] = await Promise.all([freshPostgresDatabase(), freshPostgresDatabase()]);
    expect(a.name).not.toBe(b.name);
    const storage = createPostgresStorage({ connectionString: a.url, max: 1 });
    try {
      expect((await storage.describeSchema()).tables).toEqual([]);
    } finally {
      await storage.close();
    }
    await Promise.all([a.drop(), b.drop()]);
    const gone = createPostgresStorage({ connectionString: a.url, max: 1 });
    await expect(gone.ping()).rejects.toThrow(/does not exist/);
    await gone.close();
  });
});

describeIfRedis("the test Redis server", () => {
  it("answers PING on the provided URL", async () => {
    expect(await redisCommand(redisUrl() ?? "", "PING")).toBe("+PONG");
  });
});
