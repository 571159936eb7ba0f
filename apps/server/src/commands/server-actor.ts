import { type Kith, RESOURCES } from "@kith/core";

/**
 * Who acts when an administrator runs `kith` on the server's machine: the server itself (no account; the audit log
 * records no actor), holding every permission, as tootctl acts with the database's rights.
 */
export function serverActor(): {
  accountId: null;
  grants: { resource: string; access: ("Read" | "Add" | "Modify" | "Delete")[]; scope: "global" }[];
} {
  return {
    accountId: null,
    grants: RESOURCES.map((resource) => ({ resource: resource.name, access: ["Read", "Add", "Modify", "Delete"], scope: "global" })),
  };
}

/** The id of the local account a username names; throws the core's not-found error otherwise. */
export async function localAccountId(kith: Kith, username: string): Promise<string> {
  return (await kith.services.accounts.findByUsername(username)).id;
}
