/**
 * The authorize page's passkey button, served as `/oauth/passkey.js` (the
 * page's CSP allows scripts from the server only). It asks begin-auth for
 * the username typed in the form, runs WebAuthn in the browser, and statuses
 * the assertion with the form, whose handler verifies it as finish-auth does
 * and completes the authorization. Without WebAuthn the button hides itself.
 */
export const PASSKEY_SCRIPT = `"use strict";
(() => {
  const button = document.getElementById("passkey");
  const status = document.getElementById("passkey-status");
  if (!button) return;
  if (!window.PublicKeyCredential || !navigator.credentials) { button.hidden = true; return; }
  const form = button.form;
  const toBase64url = (buffer) => {
    let text = "";
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  };
  const fromBase64url = (value) => {
    const base64 = value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4);
    return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  };
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    const username = form.elements.username.value.trim();
    if (!username) { status.textContent = "Enter your username first."; return; }
    status.textContent = "Waiting for your passkey...";
    try {
      const answer = await fetch("/api/v1/passkeys/begin-auth?username=" + encodeURIComponent(username), { credentials: "omit" });
      if (!answer.ok) throw new Error("the server refused to start");
      const options = await answer.json();
      const credential = await navigator.credentials.get({
        publicKey: {
          challenge: fromBase64url(options.challenge),
          timeout: options.timeout,
          rpId: options.rpId,
          userVerification: options.userVerification,
          allowCredentials: options.allowCredentials.map((item) => ({ type: item.type, id: fromBase64url(item.id), transports: item.transports })),
        },
      });
      if (!credential) throw new Error("no passkey was chosen");
      const response = credential.response;
      form.elements.passkey_response.value = JSON.stringify({
        id: credential.id,
        rawId: toBase64url(credential.rawId),
        type: credential.type,
        response: {
          clientDataJSON: toBase64url(response.clientDataJSON),
          authenticatorData: toBase64url(response.authenticatorData),
          signature: toBase64url(response.signature),
          userHandle: response.userHandle ? toBase64url(response.userHandle) : null,
        },
        clientExtensionResults: credential.getClientExtensionResults(),
        authenticatorAttachment: credential.authenticatorAttachment || null,
      });
      form.elements.password.value = "";
      form.submit();
    } catch (error) {
      status.textContent = "Passkey sign-in did not work: " + (error && error.message ? error.message : String(error));
    }
  });
})();
`;
