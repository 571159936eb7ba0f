/**
 * Two server processes on one database and one Redis: a post written through
 * one reaches a WebSocket held by the other, through the pubsub port.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestKith } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { RedisPubSub } from "@kith/queue-redis";
import { type Engine, type EngineDatabase, describeOnEngines } from "../support/engines.js";
import { describeIfRedis, redisUrl } from "../support/real-servers.js";

describeIfRedis("streaming across processes (Redis pubsub)", () => describeOnEngines("on one database", crossProcessSuite));

function crossProcessSuite(engine: Engine): void {
  let database: EngineDatabase;
  let writer: TestKith;
  let reader: TestKith;
  let server: NodeServer;

  beforeAll(async () => {
    database = await engine.database();
    const prefix = `kith-test-${randomBytes(4).toString("hex")}:`;
    const make = () => database.testKith({ pubsub: new RedisPubSub({ url: redisUrl() as string, prefix }) });
    writer = await make();
    reader = await make();
    server = await startNodeServer({ handler: (request, info) => reader.fetch(request, info) });
  });
  afterAll(async () => {
    await server?.close();
    await reader?.close();
    await writer?.close();
    await database?.drop();
  });

  it("delivers a post written in one process to a stream held by the other", async () => {
    const author = await writer.createUser("crossauthor");
    const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/api/v1/streaming?stream=public`);
    const messages: { event: string; payload: string }[] = [];
    ws.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data))));
    await new Promise((resolve) => ws.addEventListener("open", resolve));
    await eventually(() => expect(reader.services.streaming.webSocketSubscriptions).toBe(1));
    const response = await writer.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "across processes" } });
    const { id } = (await response.json()) as { id: string };
    await eventually(() => expect(messages.map((m) => m.event === "update" && JSON.parse(m.payload).id)).toContain(id));
    ws.close();
  });
}

