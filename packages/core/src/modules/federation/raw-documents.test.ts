import { describe, expect, it } from "vitest";
import { blurhashesIn } from "./raw-documents.js";

describe("blurhashesIn", () => {
  it("reads an attachment's blurhash by its URL, compact or expanded, at any depth", () => {
    const compact = {
      type: "Create",
      object: { type: "Note", attachment: [{ type: "Document", url: "https://a.test/1.png", blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj" }] },
    };
    const expanded = {
      "https://www.w3.org/ns/activitystreams#attachment": [
        {
          "https://www.w3.org/ns/activitystreams#url": [{ "@id": "https://a.test/2.png" }],
          "http://joinmastodon.org/ns#blurhash": [{ "@value": "U5F5f7~q00of" }],
        },
      ],
    };
    expect(blurhashesIn([compact, expanded, undefined])).toEqual(
      new Map([
        ["https://a.test/1.png", "LEHV6nWB2yk8pyo0adR*.7kCMdnj"],
        ["https://a.test/2.png", "U5F5f7~q00of"],
      ]),
    );
  });

  it("takes no value that is not a blurhash", () => {
    expect(blurhashesIn([{ url: "https://a.test/1.png", blurhash: "<script>" }, { url: "https://a.test/2.png", blurhash: "x" }])).toEqual(new Map());
  });
});
