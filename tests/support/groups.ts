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
