import { KithError } from "../../domain/errors.js";
import type { ServiceDeps } from "../service-deps.js";
import { eventErrors } from "./event-codes.js";
import type { EventTranslationEntity } from "./event-entities.js";
import type { EventViews } from "./event-views.js";
import type { EventsStore } from "./events-store.js";

/** A language tag's primary language (`pt-BR` → `pt`). */
function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

/**
 * Translates an event's title and description through the AI port's
 * provider, and keeps the result per event, language and content version:
 * an edit bumps the version, so the next asker gets a fresh translation.
 */
export class EventTranslation {
  constructor(
    private readonly deps: Pick<ServiceDeps, "ai" | "clock">,
    private readonly views: EventViews,
    private readonly store: EventsStore,
  ) {}

  async translate(eventId: string, viewerId: string | null, language: string): Promise<EventTranslationEntity> {
    const event = await this.views.visible(eventId, viewerId);
    const target = primaryLanguage(language);
    const kept = await this.store.translation(event.id, target);
    if (kept && kept.version === event.version) return this.#entity(kept);
    const title = await this.deps.ai.translate({ text: event.title, to: target });
    const description =
      event.description === ""
        ? { text: "", detectedLanguage: null }
        : await this.deps.ai.translate({ text: event.description, to: target });
    const detected = title.detectedLanguage ?? description.detectedLanguage;
    if (detected !== null && primaryLanguage(detected) === target) throw new KithError(eventErrors["event.translation_same_language"]);
    const row = {
      event_id: event.id,
      language: target,
      version: event.version,
      title: title.text,
      description: description.text,
      detected_language: detected,
      provider: this.deps.ai.name,
      created_at: this.deps.clock.now().toISOString(),
    };
    await this.store.saveTranslation(row);
    return this.#entity(row);
  }

  #entity(row: {
    language: string;
    title: string;
    description: string;
    detected_language: string | null;
    provider: string;
  }): EventTranslationEntity {
    return {
      language: row.language,
      title: row.title,
      description: row.description,
      detectedSourceLanguage: row.detected_language ?? "und",
      provider: row.provider,
    };
  }
}
