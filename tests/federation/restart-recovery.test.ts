/**
 * A server killed with jobs waiting comes back and works them all, with no
 * request sent to it (the scenario: restart-recovery-scenario.ts), with A as
 * one process on each engine. The scale-out cases are in
 * restart-recovery-scale-out.test.ts, a file of their own so that the two run
 * side by side.
 */
import { afterEach, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { killedWithJobsWaiting, stopScenarioServers } from "./restart-recovery-scenario.js";

afterEach(stopScenarioServers);

describeOnEngines("a server killed with jobs waiting", (engine) => {
  it("works every job once after its restart, with no request", () => killedWithJobsWaiting(engine.name, {}, ["all"]), 240_000);
});
