import { describe, expect, it } from "vitest";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { jsonString } from "../../platform/http/json-text.js";
import { statusText, statusTextParts } from "./status-text.js";

const account = { id: "us_1", username: "a", acct: "a", display_name: 'Quote " and \u00e9', note: "<p>x</p>" };

function entity(overrides: Partial<StatusEntity> = {}): StatusEntity {
  return {
    id: "st_1",
    uri: "https://x.example/users/a/statuses/st_1",
    url: null,
    created_at: "2026-01-01T00:00:00.000Z",
    account: account as unknown as StatusEntity["account"],
    content: '<p>Hello "world" \u{1f600}</p>',
    visibility: "public",
    sensitive: false,
    spoiler_text: "",
    media_attachments: [],
    application: { name: "App", website: null },
    mentions: [{ id: "us_2", username: "b", url: "https://x.example/@b", acct: "b" }],
    tags: [{ name: "t", url: "https://x.example/tags/t", history: [] }],
    emojis: [],
    reactions: [],
    reblogs_count: 1,
    favourites_count: 2,
    replies_count: 3,
    quotes_count: 0,
    in_reply_to_id: null,
    in_reply_to_account_id: null,
    reblog: null,
    poll: null,
    card: null,
    language: "en",
    text: null,
    edited_at: null,
    quote: null,
    quote_approval: { automatic: [], manual: [], current_user: "denied" },
    filtered: [],
    ...overrides,
  };
}

const marks = { favourited: true, reblogged: false, muted: false, bookmarked: true, pinned: false };
const poll = {
  id: "po_1",
  expires_at: null,
  expired: false,
  multiple: false,
  votes_count: 1,
  voters_count: 1,
  options: [{ title: "yes", votes_count: 1 }],
  emojis: [],
  voted: true,
  own_votes: [0],
};

describe("statusText", () => {
  it("is JSON.stringify of the entity, whatever differs per render", () => {
    const cases: StatusEntity[] = [
      entity(),
      entity(marks),
      entity({ ...marks, poll }),
      entity({ filtered: [{ filter: { id: "f" }, keyword_matches: ["x"], status_matches: null }] as unknown as StatusEntity["filtered"] }),
      entity({ favourited: true, pinned: false }),
      entity({ url: "https://x.example/@a/st_1", text: "source", edited_at: "2026-01-02T00:00:00.000Z" }),
    ];
    for (const each of cases) {
      const parts = statusTextParts(each, JSON.stringify(each.account));
      expect(jsonString(statusText(each, parts, "null"))).toBe(JSON.stringify(each));
    }
  });

  it("ends with the marks as JSON.stringify writes them, for each combination of the five", () => {
    const names = ["favourited", "reblogged", "muted", "bookmarked", "pinned"] as const;
    for (let bits = 0; bits < 32; bits++) {
      const each = entity(Object.fromEntries(names.map((name, i) => [name, (bits & (1 << i)) !== 0])));
      const parts = statusTextParts(each, JSON.stringify(each.account));
      expect(jsonString(statusText(each, parts, "null")), `marks ${bits}`).toBe(JSON.stringify(each));
    }
  });

  it("nests the boosted post's text", () => {
    const inner = entity(marks);
    const boost = entity({ ...marks, id: "st_2", content: "", reblog: inner as unknown as StatusEntity["reblog"] });
    const innerText = statusText(inner, statusTextParts(inner, JSON.stringify(inner.account)), "null");
    expect(jsonString(statusText(boost, statusTextParts(boost, JSON.stringify(boost.account)), innerText))).toBe(JSON.stringify(boost));
  });
});
