import type { GroupAppDeclaration, KithModule } from "../module.js";

/** An application of the catalog, as the API shows it. */
export interface GroupAppEntry {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The module that offers it; null for one this server has no module for yet. */
  readonly module: string | null;
  /** Whether a group can install it: a composed module offers it. */
  readonly available: boolean;
  /** Installed in every group until its managers uninstall it. */
  readonly defaultInstalled: boolean;
}

/**
 * Applications the project is building, listed before their modules exist
 * so that clients can show what is coming: unavailable until a composed
 * module declares the same id, which then takes the entry over.
 */
export const PLANNED_GROUP_APPS: readonly GroupAppDeclaration[] = [
  { id: "calendar", name: "Calendar", description: "The group's events, with their attendees and a calendar to subscribe to" },
  {
    id: "data",
    name: "Platform data",
    description: "Entries of JSON data the group owns, typed and tagged, for other applications to build on",
  },
  {
    id: "ai-agents",
    name: "AI agents",
    description: "Bots that act within the group, with the tools, triggers and providers its managers give them",
  },
];

/**
 * The applications groups can install: those the composed modules declare
 * (`groupApps`), then the planned ones no module declares yet.
 */
export class GroupAppCatalog {
  readonly #entries = new Map<string, GroupAppEntry>();

  constructor(modules: readonly KithModule<string, unknown>[], planned: readonly GroupAppDeclaration[] = PLANNED_GROUP_APPS) {
    for (const module of modules) {
      for (const app of module.groupApps ?? []) {
        if (!/^[a-z][a-z0-9-]*$/.test(app.id))
          throw new Error(`Group application id ${app.id} of module ${module.name} is not [a-z][a-z0-9-]*`);
        const taken = this.#entries.get(app.id);
        if (taken) throw new Error(`Group application ${app.id} is declared by modules ${taken.module} and ${module.name}`);
        this.#entries.set(app.id, { ...app, module: module.name, available: true, defaultInstalled: app.defaultInstalled ?? false });
      }
    }
    for (const app of planned) {
      if (!this.#entries.has(app.id)) this.#entries.set(app.id, { ...app, module: null, available: false, defaultInstalled: false });
    }
  }

  all(): readonly GroupAppEntry[] {
    return [...this.#entries.values()];
  }

  get(id: string): GroupAppEntry | undefined {
    return this.#entries.get(id);
  }
}
