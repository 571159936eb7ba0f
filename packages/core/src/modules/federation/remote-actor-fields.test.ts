import { describe, expect, it } from "vitest";
import { acceptableRemoteUsername, httpUrlOrNull, remoteDisplayName } from "./remote-actor-fields.js";

describe("remote actor fields", () => {
  it("accept the usernames WebFinger handles name, and no other", () => {
    for (const name of ["alice", "Alice_2", "a.b-c", "_x_", "a"]) expect(acceptableRemoteUsername(name)).toBe(name);
    for (const name of ["alice@127.0.0.1:3110", "a/b", "a b", "", ".alice", "alice-", "a:b", "ali\u200Bce", "x".repeat(256)]) {
      expect(acceptableRemoteUsername(name)).toBeNull();
    }
  });

  it("make a display name plain text", () => {
    expect(remoteDisplayName("<b>Bo</b><script>x()</script> &lt;3")).toBe("Bo 3");
    expect(remoteDisplayName("a".repeat(500))).toHaveLength(100);
  });

  it("keep http(s) addresses only", () => {
    expect(httpUrlOrNull("https://x.example/@a")).toBe("https://x.example/@a");
    expect(httpUrlOrNull("javascript:alert(1)")).toBeNull();
    expect(httpUrlOrNull("data:text/html,x")).toBeNull();
    expect(httpUrlOrNull(null)).toBeNull();
  });
});
