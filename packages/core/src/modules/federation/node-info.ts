import type { NodeInfo } from "@fedify/fedify";
import type { ServiceDeps } from "../service-deps.js";
import type { KithServices } from "../core-services.js";
import { countUsage } from "./federation-reads-store.js";

/** What the server says of itself in NodeInfo, both the 2.1 document Fedify serves and the 2.0 one (discovery-documents.ts). */
export async function nodeInfoOf(deps: Pick<ServiceDeps, "storage" | "clock" | "config">, services: Pick<KithServices, "settings">): Promise<NodeInfo> {
  const { config } = deps;
  const [usage, settings] = await Promise.all([countUsage(deps.storage.db, deps.clock.now()), services.settings.all()]);
  return {
    software: {
      name: "kith",
      version: config.version,
      ...(config.sourceUrl && URL.canParse(config.sourceUrl) && { repository: new URL(config.sourceUrl) }),
      homepage: new URL(config.origin),
    },
    protocols: ["activitypub"],
    openRegistrations: settings.registrationsMode !== "closed",
    usage: {
      users: { total: usage.users, activeMonth: usage.activeMonth, activeHalfyear: usage.activeHalfyear },
      localPosts: usage.localStatuses,
      localComments: 0,
    },
    metadata: { nodeName: settings.title, nodeDescription: settings.description },
  };
}
