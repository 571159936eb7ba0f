import { InboxAddresses } from "../../platform/federation/inbox-addresses.js";
import { defineModule } from "../module.js";
import { relayMigrations } from "./migrations.js";
import { listenForRelayAnswers } from "./relay-inbox.js";
import { RelayService } from "./relay-service.js";
import { RelaysStore } from "./relays-store.js";
import { relayRoutes } from "./routes.js";

export type { RelayEntity, RelayService } from "./relay-service.js";

/**
 * ActivityPub relays, of Mastodon's and LitePub's kinds: administrators
 * subscribe to them (`/api/v1/admin/relays`), this server's public statuses
 * go to those that accepted, and what they pass on is kept as statuses.
 */
export const relaysModule = defineModule({
  name: "relays",
  migrations: relayMigrations,
  services: ({ deps, core, federation }) => {
    const addresses = new InboxAddresses({ allowPrivateAddress: deps.config.allowPrivateAddress, clock: deps.clock });
    const relays = new RelayService(deps, new RelaysStore(deps.storage), federation, addresses);
    core.relays.bind(relays);
    return relays;
  },
  routes: relayRoutes,
  inbox: (relays, inbox, vocab) => listenForRelayAnswers(relays, inbox, vocab),
  start: (relays) => relays.listen(),
});
