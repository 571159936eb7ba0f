import type { PageRequest } from "../../domain/page.js";
import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";
import { MAX_SHORTCODE_LENGTH, SHORTCODE_PATTERN, serializeCustomEmoji } from "../../mastodon/serializers/custom-emoji.js";
import type { StoredBlob } from "../../ports/blob.js";
import { type CustomEmojiRow, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { type AdminCustomEmojiEntity, serializeAdminCustomEmoji } from "./admin-custom-emoji.js";
import { customEmojiErrors } from "./custom-emoji-errors.js";
import { deleteEmojiImage, storeEmojiImage } from "./custom-emoji-images.js";
import {
  type EmojiFilter,
  type EmojiImageColumns,
  deleteCustomEmoji,
  findCustomEmoji,
  findLocalCustomEmoji,
  insertLocalEmoji,
  listCustomEmojiPage,
  listLocalCustomEmojis,
  updateCustomEmoji,
} from "./custom-emojis-store.js";
import { readTarGz } from "./emoji-archive.js";
import { emojiObjectOf } from "./emoji-object.js";

export type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";

const logger = getLogger(["custom-emojis"]);

/** A new emoji of this server. */
export interface NewEmojiInput {
  readonly shortcode: string;
  readonly image: Uint8Array;
  readonly category?: string | null;
  /** @default true */
  readonly visibleInPicker?: boolean;
}

/** What may change of one of this server's emojis. */
export interface EmojiUpdate {
  readonly category?: string | null;
  readonly visibleInPicker?: boolean;
}

/** `kith emoji import`'s options, tootctl's. */
export interface EmojiImportOptions {
  readonly prefix?: string;
  readonly suffix?: string;
  /** Replaces the image of an emoji whose shortcode is taken; without it such a file is skipped. */
  readonly overwrite?: boolean;
  readonly category?: string;
  /** Leaves the imported emojis out of the picker. */
  readonly unlisted?: boolean;
}

/** What an import did: the shortcodes added or replaced, skipped as taken, and refused with the reason. */
export interface EmojiImportReport {
  readonly imported: string[];
  readonly skipped: string[];
  readonly failed: { readonly file: string; readonly reason: string }[];
}

/** The file types tootctl imports from an archive. */
const ARCHIVE_IMAGE = /^(?:.*\/)?([^/]+)\.(png|gif)$/i;

/**
 * This server's custom emojis: the list clients load on start, their
 * administration (Mastodon's admin actions: add with an image, change the
 * category and whether the picker shows it, enable, disable, delete; other
 * servers' emojis can be listed, enabled and disabled) and the import of an
 * archive as `tootctl emoji import` does.
 */
export class CustomEmojiService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "blob" | "config" | "clock" | "ids">) {}

  /** Enabled local emojis whose image can be fetched; one without an image is left out rather than sent broken. */
  async list(): Promise<CustomEmojiEntity[]> {
    const rows = await listLocalCustomEmojis(this.deps.storage.db);
    return rows.flatMap((row) => serializeCustomEmoji(row, this.deps.config.origin, this.deps.blob) ?? []);
  }

  async page(filter: EmojiFilter, page: PageRequest): Promise<AdminCustomEmojiEntity[]> {
    return (await listCustomEmojiPage(this.deps.storage.db, filter, page)).map((row) => this.#admin(row));
  }

  async get(id: string): Promise<AdminCustomEmojiEntity> {
    return this.#admin(await this.#find(id));
  }

  /** Adds an emoji of this server; 422 when the shortcode is invalid or taken or the image is not one, 413 when too large. */
  async create(input: NewEmojiInput): Promise<AdminCustomEmojiEntity> {
    const shortcode = checkedShortcode(input.shortcode);
    if (await findLocalCustomEmoji(this.deps.storage.db, shortcode)) throw new KithError(customEmojiErrors["custom_emoji.shortcode_taken"]);
    const id = this.deps.ids.next("emoji");
    const image = await storeEmojiImage(this.deps.blob, id, input.image);
    const inserted = await insertLocalEmoji(
      this.deps.storage.db,
      {
        id,
        shortcode,
        category: normalizedCategory(input.category),
        visibleInPicker: input.visibleInPicker ?? true,
        image,
        uri: `${this.deps.config.origin}/emojis/${id}`,
      },
      this.deps.clock.now().toISOString(),
    );
    if (!inserted) {
      // Taken a moment ago by another request.
      await deleteEmojiImage(this.deps.blob, { image_key: image.imageKey, static_key: image.staticKey });
      throw new KithError(customEmojiErrors["custom_emoji.shortcode_taken"]);
    }
    return this.get(id);
  }

  /** Changes the category or the picker's choice of one of this server's emojis. */
  async update(id: string, changes: EmojiUpdate): Promise<AdminCustomEmojiEntity> {
    const row = await this.#find(id);
    if (row.domain !== null) throw new KithError(customEmojiErrors["custom_emoji.remote"]);
    await updateCustomEmoji(
      this.deps.storage.db,
      id,
      {
        ...(changes.category !== undefined && { category: normalizedCategory(changes.category) }),
        ...(changes.visibleInPicker !== undefined && { visibleInPicker: changes.visibleInPicker }),
      },
      this.deps.clock.now().toISOString(),
    );
    return this.get(id);
  }

  /** Enables or disables an emoji, of this server or another: a disabled one is shown nowhere. */
  async setDisabled(id: string, disabled: boolean): Promise<AdminCustomEmojiEntity> {
    await this.#find(id);
    await updateCustomEmoji(this.deps.storage.db, id, { disabled }, this.deps.clock.now().toISOString());
    return this.get(id);
  }

  /** Deletes an emoji with its files; another server's comes back when it is used again, as on Mastodon. */
  async remove(id: string): Promise<AdminCustomEmojiEntity> {
    const row = await this.#find(id);
    const entity = this.#admin(row);
    await deleteCustomEmoji(this.deps.storage.db, id);
    await deleteEmojiImage(this.deps.blob, row);
    return entity;
  }

  /** One of this server's enabled emojis as the ActivityPub object its id names; null for any other. */
  async activityObject(id: string): Promise<Record<string, unknown> | null> {
    const row = await findCustomEmoji(this.deps.storage.db, id);
    if (!row || toBool(row.disabled as unknown as boolean | number)) return null;
    return emojiObjectOf(row, this.deps.config.origin);
  }

  /** The stored file a local emoji's URL names (its image or still), or null. */
  async openImage(id: string, fileName: string): Promise<StoredBlob | null> {
    const row = await findCustomEmoji(this.deps.storage.db, id);
    if (!row) return null;
    const key = [row.image_key, row.static_key].find((candidate) => candidate?.slice(candidate.lastIndexOf("/") + 1) === fileName);
    return key ? this.deps.blob.get(key) : null;
  }

  /**
   * Imports the PNG and GIF images of a tar.gz archive as emojis named after
   * their files (`blobcat.png` is `:blobcat:`, with the prefix and suffix
   * around it), as `tootctl emoji import` does. A taken shortcode is skipped
   * unless `overwrite`, which gives the emoji the archive's image. A file
   * that cannot be an emoji is reported and the import goes on.
   */
  async importArchive(archive: Uint8Array, options: EmojiImportOptions = {}): Promise<EmojiImportReport> {
    const report: EmojiImportReport = { imported: [], skipped: [], failed: [] };
    for (const file of readTarGz(archive)) {
      const match = ARCHIVE_IMAGE.exec(file.path);
      const name = match?.[1];
      // macOS writes `._name` companions beside each file of an archive it makes.
      if (!name || name.startsWith("._")) continue;
      const shortcode = `${options.prefix ?? ""}${name}${options.suffix ?? ""}`;
      try {
        const done = await this.#importOne(shortcode, file.bytes, options);
        (done ? report.imported : report.skipped).push(shortcode);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        report.failed.push({ file: file.path, reason });
        logger.info("Did not import {file} as an emoji: {reason}", { file: file.path, reason });
      }
    }
    return report;
  }

  /** One emoji of an archive: added, replaced (true) or left as it was (false). */
  async #importOne(shortcode: string, bytes: Uint8Array, options: EmojiImportOptions): Promise<boolean> {
    const existing = await findLocalCustomEmoji(this.deps.storage.db, checkedShortcode(shortcode));
    if (!existing) {
      await this.create({
        shortcode,
        image: bytes,
        category: options.category ?? null,
        visibleInPicker: options.unlisted !== true,
      });
      return true;
    }
    if (!options.overwrite) return false;
    const image: EmojiImageColumns = await storeEmojiImage(this.deps.blob, existing.id, bytes);
    await updateCustomEmoji(
      this.deps.storage.db,
      existing.id,
      {
        image,
        ...(options.category !== undefined && { category: normalizedCategory(options.category) }),
        ...(options.unlisted !== undefined && { visibleInPicker: !options.unlisted }),
      },
      this.deps.clock.now().toISOString(),
    );
    // The old files go once the row names the new ones (the same content keeps its key).
    for (const key of [existing.image_key, existing.static_key]) {
      if (key && key !== image.imageKey && key !== image.staticKey) await this.deps.blob.delete(key);
    }
    return true;
  }

  async #find(id: string): Promise<CustomEmojiRow> {
    const row = await findCustomEmoji(this.deps.storage.db, id);
    if (!row) throw new KithError(customEmojiErrors["custom_emoji.not_found"]);
    return row;
  }

  #admin(row: CustomEmojiRow): AdminCustomEmojiEntity {
    return serializeAdminCustomEmoji(row, this.deps.config.origin, this.deps.blob);
  }
}

function checkedShortcode(shortcode: string): string {
  if (!SHORTCODE_PATTERN.test(shortcode) || shortcode.length > MAX_SHORTCODE_LENGTH) {
    throw new KithError(customEmojiErrors["custom_emoji.invalid_shortcode"], {
      details: [{ field: "shortcode", message: "2 to 128 letters, digits or underscores" }],
    });
  }
  return shortcode;
}

/** A category as the picker groups by it: trimmed, none when empty. */
function normalizedCategory(category: string | null | undefined): string | null {
  const trimmed = category?.trim() ?? "";
  return trimmed === "" ? null : trimmed.slice(0, 128);
}
