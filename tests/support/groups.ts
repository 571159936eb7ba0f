import type { TestKith } from "@kith/core/testing";
import { expect } from "vitest";
import type { InspectedJson } from "./expect-json.js";

/** A group as the API answers it, with the fields the tests read. */
export interface GroupJson {
  readonly id: string;
  readonly name: string;
  readonly display_name: string;
  readonly join_mode: string;
  readonly secret: boolean;
  readonly discoverable: boolean;
  readonly members_count: number;
  readonly membership: {
    readonly member: boolean;
    readonly roles: readonly { id: string; name: string }[];
    readonly requested: boolean;
    readonly invited: boolean;
  } | null;
}

let serial = 0;

/** A fresh group name, unique in the run. */
export function groupName(prefix = "grp"): string {
  return `${prefix}${++serial}`;
}

/** Makes a group through the API as the token's user; fails the test if it is refused. */
export async function createGroup(kith: TestKith, token: string, body: Record<string, unknown> = {}): Promise<GroupJson> {
  const response = await kith.request("POST", "/api/v1/groups", { token, json: { name: groupName(), ...body } });
  expect(response.status).toBe(200);
  return (await response.json()) as GroupJson;
}

/** Sends a request and reads its status and JSON body. */
export async function call(
  kith: TestKith,
  method: string,
  path: string,
  token?: string,
  json?: unknown,
): Promise<{ status: number; body: InspectedJson }> {
  const response = await kith.request(method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Makes a group of the owner's with one more member (invited first when the group is secret, as only then may they join). */
export async function createGroupWithMember(
  kith: TestKith,
  owner: { readonly token: string },
  member: { readonly token: string; readonly account: { readonly id: string } },
  body: Record<string, unknown> = {},
): Promise<GroupJson> {
  const made = await createGroup(kith, owner.token, body);
  if (body.secret) {
    const invited = await call(kith, "POST", `/api/v1/groups/${made.id}/invitations`, owner.token, { account_id: member.account.id });
    expect(invited.status).toBe(200);
  }
  expect((await call(kith, "POST", `/api/v1/groups/${made.id}/join`, member.token)).status).toBe(200);
  return made;
}
