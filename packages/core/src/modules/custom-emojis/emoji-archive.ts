import { gunzipSync } from "node:zlib";

/** A regular file of an archive. */
export interface ArchiveFile {
  /** Its path in the archive. */
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** The most an archive may hold once unpacked; a larger one is refused whole rather than read into memory. */
export const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

const BLOCK = 512;

/** A tar header's text field: up to its first NUL. */
function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** A tar header's size: octal text, or GNU's base-256 form for sizes octal cannot write. */
function sizeOf(block: Uint8Array): number {
  if (((block[124] ?? 0) & 0x80) !== 0) {
    let size = 0;
    for (let i = 125; i < 136; i++) size = size * 256 + (block[i] ?? 0);
    return size;
  }
  const text = field(block, 124, 12).trim();
  const size = text === "" ? 0 : Number.parseInt(text, 8);
  if (!Number.isFinite(size) || size < 0) throw new Error("An archive entry has no valid size");
  return size;
}

/** The `path` of a PAX extended header, if it gives one. */
function paxPath(data: Uint8Array): string | null {
  const text = new TextDecoder().decode(data);
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(" ", at);
    if (space < 0) break;
    const length = Number.parseInt(text.slice(at, space), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = text.slice(space + 1, at + length - 1);
    if (record.startsWith("path=")) return record.slice(5);
    at += length;
  }
  return null;
}

/**
 * The regular files of a gzip-compressed tar archive (ustar, with GNU long
 * names and PAX paths), as `tootctl emoji import` reads its archive.
 * Directories, links and other entries are passed over. Throws on what is
 * not such an archive.
 */
export function readTarGz(compressed: Uint8Array): ArchiveFile[] {
  let tar: Uint8Array;
  try {
    tar = new Uint8Array(gunzipSync(compressed, { maxOutputLength: MAX_UNPACKED_BYTES }));
  } catch (error) {
    throw new Error(`Not a gzip archive of at most ${MAX_UNPACKED_BYTES} bytes unpacked: ${error instanceof Error ? error.message : error}`);
  }
  const files: ArchiveFile[] = [];
  let offset = 0;
  let longName: string | null = null;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    if (field(header, 257, 5) !== "ustar") throw new Error("Not a tar archive");
    const size = sizeOf(header);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw new Error("The archive is truncated");
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L") {
      longName = field(data, 0, data.length);
      continue;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "g") continue;
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = null;
    if (type === "0" || type === "\0") files.push({ path: name, bytes: data.slice() });
  }
  return files;
}
