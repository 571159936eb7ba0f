import { describe, expect, it } from "vitest";
import { KeyFetchBudget } from "./key-fetch-budget.js";

describe("the budget of requests that would fetch a key", () => {
  it("counts per client address, and refuses past the limit until the minute is over", () => {
    let now = 0;
    const budget = new KeyFetchBudget({ perSource: 3, perUnknownHost: 100 }, () => now);
    for (let i = 0; i < 3; i++) expect(budget.take(`host${i}.example`, "192.0.2.1")).toBeNull();
    now = 15_000;
    expect(budget.take("host9.example", "192.0.2.1")).toBe(45);
    expect(budget.take("host9.example", "192.0.2.2")).toBeNull();
    now = 60_000;
    expect(budget.take("host9.example", "192.0.2.1")).toBeNull();
  });

  it("counts per host until a key of it verified", () => {
    const budget = new KeyFetchBudget({ perSource: 100, perUnknownHost: 2 }, () => 0);
    expect(budget.take("new.example", "192.0.2.1")).toBeNull();
    expect(budget.take("new.example", "192.0.2.2")).toBeNull();
    expect(budget.take("new.example", "192.0.2.3")).toBe(60);
    budget.vouch("new.example");
    expect(budget.take("new.example", "192.0.2.3")).toBeNull();
  });

  it("does not count new keys of a host known to sign, however many come from one address", () => {
    const budget = new KeyFetchBudget({ perSource: 2, perUnknownHost: 2 }, () => 0);
    expect(budget.take("big.example", "192.0.2.1")).toBeNull();
    budget.vouch("big.example");
    for (let i = 0; i < 50; i++) expect(budget.take("big.example", "192.0.2.1")).toBeNull();
    // Unknown hosts from that address are still counted: one more is allowed, then none.
    expect(budget.take("new1.example", "192.0.2.1")).toBeNull();
    expect(budget.take("new2.example", "192.0.2.1")).toBe(60);
  });

  it("counts an address's requests by the unknown hosts they name, each once", () => {
    const budget = new KeyFetchBudget({ perSource: 2, perUnknownHost: 100 }, () => 0);
    for (let i = 0; i < 20; i++) expect(budget.take("one.example", "192.0.2.1")).toBeNull();
    expect(budget.take("two.example", "192.0.2.1")).toBeNull();
    expect(budget.take("two.example", "192.0.2.1")).toBeNull();
    expect(budget.take("three.example", "192.0.2.1")).toBe(60);
  });

  it("counts a request without a known address per host only", () => {
    const budget = new KeyFetchBudget({ perSource: 1, perUnknownHost: 2 }, () => 0);
    expect(budget.take("a.example", null)).toBeNull();
    expect(budget.take("a.example", null)).toBeNull();
    expect(budget.take("a.example", null)).toBe(60);
  });
});
