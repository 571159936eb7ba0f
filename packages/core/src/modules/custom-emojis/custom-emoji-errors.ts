import { defineErrorCodes } from "../../domain/error-catalog.js";

/** What the custom emoji administration refuses, with the status each answers. */
export const customEmojiErrors = defineErrorCodes({
  "custom_emoji.not_found": { status: 404, message: "Custom emoji not found" },
  "custom_emoji.shortcode_taken": { status: 409, message: "A custom emoji of this server already has that shortcode" },
  "custom_emoji.invalid_shortcode": {
    status: 422,
    message: "A shortcode is 2 to 128 letters, digits or underscores",
  },
  "custom_emoji.unsupported_image": { status: 415, message: "A custom emoji's image is a PNG, GIF or WebP image" },
  "custom_emoji.image_too_large": { status: 413, message: "The image is larger than this server accepts for custom emojis" },
  "custom_emoji.remote": { status: 409, message: "Only this server's custom emojis can be changed; another server's can be enabled or disabled" },
});
