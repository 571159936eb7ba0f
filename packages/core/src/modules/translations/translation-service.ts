import { KithError } from "../../domain/errors.js";
import type { TranslationEntity } from "../../mastodon/entities/translation.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusTranslator } from "../statuses/index.js";
import type { TranslationsStore } from "./translations-store.js";

/** A language tag's primary language, as statuses name theirs (`pt-BR` → `pt`). */
function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

/**
 * Translates statuses with the AI port's provider, as Mastodon does: only
 * public and unlisted statuses, into a language other than their own. The
 * texts translated are the content, the content warning, the poll's options
 * and the media's descriptions. A translation is kept per status, language
 * and version: an edit makes the kept one stale, and the next asker gets a
 * new one.
 */
export class TranslationService implements StatusTranslator {
  constructor(
    private readonly deps: Pick<ServiceDeps, "ai" | "clock">,
    private readonly core: Pick<KithServices, "statusViews">,
    private readonly store: TranslationsStore,
  ) {}

  async translate(statusId: string, viewerId: string, language: string): Promise<TranslationEntity> {
    const status = await this.core.statusViews.renderOne(statusId, viewerId);
    if (!status) throw new KithError("status.not_found");
    const target = primaryLanguage(language);
    const source = status.language ? primaryLanguage(status.language) : null;
    if ((status.visibility !== "public" && status.visibility !== "unlisted") || target === "" || source === target) {
      throw new KithError("status.forbidden");
    }
    const version = status.edited_at ?? status.created_at;
    const kept = await this.store.find(status.id, target);
    if (kept && kept.version === version) return JSON.parse(kept.translation) as TranslationEntity;
    const translate = async (text: string) => {
      if (text === "") return { text, detectedLanguage: null };
      return this.deps.ai.translate({ text, ...(source && { from: source }), to: target });
    };
    const content = await translate(status.content);
    const spoiler = await translate(status.spoiler_text);
    const options = status.poll ? await Promise.all(status.poll.options.map((option) => translate(option.title))) : [];
    const media = await Promise.all(
      status.media_attachments.map(async (attachment) => ({
        id: attachment.id,
        description: (await translate(attachment.description ?? "")).text,
      })),
    );
    const translation: TranslationEntity = {
      content: content.text,
      spoiler_text: spoiler.text,
      poll: status.poll ? { id: status.poll.id, options: options.map((option) => ({ title: option.text })) } : null,
      media_attachments: media,
      detected_source_language: source ?? content.detectedLanguage ?? spoiler.detectedLanguage ?? "und",
      provider: this.deps.ai.name,
    };
    await this.store.save({
      status_id: status.id,
      language: target,
      version,
      translation: JSON.stringify(translation),
      created_at: this.deps.clock.now().toISOString(),
    });
    return translation;
  }
}
