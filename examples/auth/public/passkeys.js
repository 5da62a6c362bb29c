// The passkey ceremonies of the example app: sign-in on the login page,
// "Add a passkey" on the profile. The server's options arrive as JSON
// (base64url for binary fields) and the credential goes back as JSON.
// Loaded as a module with the page's CSP nonce; does nothing on a browser
// without WebAuthn (the parts it drives stay hidden).

const b64 = {
  decode(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "=".repeat((4 - base64.length % 4) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)).buffer;
  },
  encode(buffer) {
    const bytes = new Uint8Array(buffer);
    let text = "";
    for (const byte of bytes) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(
      /=+$/,
      "",
    );
  },
};

function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: b64.decode(json.challenge),
    user: { ...json.user, id: b64.decode(json.user.id) },
    excludeCredentials: (json.excludeCredentials ?? []).map((c) => ({
      ...c,
      id: b64.decode(c.id),
    })),
  };
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: b64.decode(json.challenge),
    allowCredentials: (json.allowCredentials ?? []).map((c) => ({
      ...c,
      id: b64.decode(c.id),
    })),
  };
}

function toJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: b64.encode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64.encode(r.attestationObject);
    response.transports = r.getTransports?.() ?? [];
  } else {
    response.authenticatorData = b64.encode(r.authenticatorData);
    response.signature = b64.encode(r.signature);
    if (r.userHandle) response.userHandle = b64.encode(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: b64.encode(credential.rawId),
    type: credential.type,
    response,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  // Adding a passkey needs a fresh confirmation: go and give it.
  if (response.status === 401 && typeof answer.confirm === "string") {
    globalThis.location.assign(answer.confirm);
    return new Promise(() => {});
  }
  if (!response.ok) {
    throw new Error(answer.error ?? `The server answered ${response.status}.`);
  }
  return answer;
}

/** A browser-side refusal (cancelled, timed out, no passkey) in words. */
function describe(error) {
  if (error?.name === "NotAllowedError") {
    return "The passkey request was cancelled or timed out.";
  }
  if (error?.name === "InvalidStateError") {
    return "This device already holds a passkey for your account.";
  }
  return error?.message ?? String(error);
}

function show(element, message) {
  element.textContent = message;
  element.hidden = false;
}

async function signIn(section) {
  const error = section.querySelector("#passkey-login-error");
  error.hidden = true;
  const email = document.getElementById("email")?.value.trim() ?? "";
  try {
    const options = await post(
      section.dataset.options,
      email ? { email } : {},
    );
    const credential = await navigator.credentials.get({
      publicKey: requestOptions(options),
    });
    const { location: next } = await post(
      section.dataset.action,
      toJSON(credential),
    );
    globalThis.location.assign(next);
  } catch (e) {
    show(error, describe(e));
  }
}

async function addPasskey(form) {
  const error = form.querySelector("#passkey-add-error");
  error.hidden = true;
  try {
    const options = await post(form.dataset.options, {});
    const credential = await navigator.credentials.create({
      publicKey: creationOptions(options),
    });
    const name = form.querySelector("[name=name]").value.trim();
    const { location: next } = await post(form.dataset.action, {
      name: name || undefined,
      credential: toJSON(credential),
    });
    globalThis.location.assign(next);
  } catch (e) {
    show(error, describe(e));
  }
}

if (globalThis.PublicKeyCredential && globalThis.isSecureContext) {
  const section = document.getElementById("passkey-login");
  if (section) {
    section.hidden = false;
    section.querySelector("button").addEventListener(
      "click",
      () => signIn(section),
    );
  }
  const form = document.getElementById("passkey-add");
  if (form) {
    form.hidden = false;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      addPasskey(form);
    });
  }
}
