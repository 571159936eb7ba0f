/**
 * A server killed with jobs waiting comes back and works them all, with no
 * request sent to it (the scenario: restart-recovery-scenario.ts), as servers
 * that scale out run: A as separate web and worker processes, its jobs in
 * PostgreSQL or in Redis. PostgreSQL only: a SQLite file is for one process.
 */
import { afterEach, it } from "vitest";
import { describeIfPostgres, describeIfRedis, redisUrl } from "../support/real-servers.js";
import { killedWithJobsWaiting, stopScenarioServers } from "./restart-recovery-scenario.js";

afterEach(stopScenarioServers);

describeIfPostgres("a server killed with jobs waiting, scaled out on PostgreSQL", () => {
  it("works every job once after web and worker processes restart, with no request", () =>
    killedWithJobsWaiting("postgres", {}, ["web", "worker"]), 240_000);

  describeIfRedis("with its jobs in Redis", () => {
    // A Redis database of its own for each case: the server's keys are named alike in every test.
    const redisDatabase = (index: number) => ({ KITH_REDIS_URL: `${redisUrl()}/${index}` });
    it("works every job once after its restart, with no request", () => killedWithJobsWaiting("postgres", redisDatabase(7), ["all"]), 240_000);
    it("works every job once after web and worker processes restart, with no request", () =>
      killedWithJobsWaiting("postgres", redisDatabase(8), ["web", "worker"]), 240_000);
  });
});
