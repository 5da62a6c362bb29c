/**
 * The devices a user is signed in on, over the session storage's
 * sessions by user (`listUserSessions`, `destroyUserSession`,
 * `destroyUserSessions` of the memory, Deno KV and Redis storages; see
 * `@fetchkit/toolkit/session-middleware`).
 *
 * - **Binding.** {@linkcode bindDevice} runs after every handler: a
 *   session signed in (the app's `userId`) but not yet bound to that user
 *   is bound with `session.setUser(id, { address, userAgent })`, so every
 *   sign-in path (password, passkey, provider, a second factor) is
 *   listed without each one calling it; a session signed out but kept
 *   (logout's flash) is unbound with `session.unsetUser()`.
 * - **Handles, not ids.** A session id is a bearer credential: the page
 *   never shows the other devices' ids, only a handle (the first 128
 *   bits of the id's SHA-256, base64url), which the sign-out forms carry
 *   and the controller matches against the user's own sessions. A handle
 *   cannot be turned back into a cookie, and one user's handles match
 *   nothing of another's.
 * - **Signed cookies** (`SESSION_STORAGE=cookie`) cannot be listed: the
 *   page says so, and "Sign out everywhere" is the password reset, which
 *   ends every session through the user's generation (`sign_in.ts`).
 *
 * @module
 */
import { base64Url, sha256 } from "./tokens.ts";
import type {
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { Session } from "./context.ts";
import { deviceName } from "./user_agent.ts";

/** One live session of a user, as the storage lists it. */
export interface ListedSession {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  address: string | undefined;
  userAgent: string | undefined;
}

/** What a storage that lists a user's sessions can do. */
export interface DeviceSessions {
  listUserSessions(userId: string): Promise<ListedSession[]>;
  destroyUserSession(userId: string, id: string): Promise<boolean>;
  destroyUserSessions(
    userId: string,
    options?: { except?: string },
  ): Promise<number>;
}

/** The storage's listing methods, or `null` (signed cookies). */
export function deviceSessionsOf(
  storage: SessionStorage,
): DeviceSessions | null {
  const candidate = storage as Partial<DeviceSessions>;
  return typeof candidate.listUserSessions === "function" &&
      typeof candidate.destroyUserSession === "function" &&
      typeof candidate.destroyUserSessions === "function"
    ? candidate as DeviceSessions
    : null;
}

/** A device as the security page shows it. */
export interface Device {
  /** The handle in the sign-out form's URL (see the module docs). */
  handle: string;
  browser: string;
  os: string;
  address: string | undefined;
  signedInAt: Date;
  lastSeenAt: Date;
  /** The session of this request. */
  current: boolean;
}

/** A session id's handle: 128 bits of its SHA-256, base64url. */
export async function handleOf(id: string): Promise<string> {
  return base64Url((await sha256(id)).slice(0, 16));
}

/** The user's devices, this one first, then the most recently seen. */
export async function listDevices(
  sessions: DeviceSessions,
  userId: number,
  currentId: string,
): Promise<Device[]> {
  const listed = await sessions.listUserSessions(String(userId));
  const devices = await Promise.all(listed.map(async (session) => ({
    handle: await handleOf(session.id),
    ...deviceName(session.userAgent),
    address: session.address,
    signedInAt: session.createdAt,
    lastSeenAt: session.lastSeenAt,
    current: session.id === currentId,
  })));
  return devices.sort((a, b) =>
    Number(b.current) - Number(a.current) ||
    b.lastSeenAt.getTime() - a.lastSeenAt.getTime()
  );
}

/**
 * Ends the user's session whose handle is `handle`; `false` when none of
 * theirs has it, or it is this request's own (signing out this device is
 * "Log out").
 */
export async function endDevice(
  sessions: DeviceSessions,
  userId: number,
  handle: string,
  currentId: string,
): Promise<boolean> {
  for (const session of await sessions.listUserSessions(String(userId))) {
    if (session.id === currentId) continue;
    if (await handleOf(session.id) === handle) {
      return await sessions.destroyUserSession(String(userId), session.id);
    }
  }
  return false;
}

/**
 * Router middleware, after `session()`: binds a signed-in session to its
 * user once, with the client's address and user agent (see the module
 * docs).
 */
export function bindDevice(): Middleware {
  return async (context, next) => {
    const response = await next();
    bind(context);
    return response;
  };
}

function bind(context: RequestContext): void {
  const session = context.get(Session);
  if (!session) return;
  const userId = session.get("userId");
  try {
    if (userId === undefined) {
      // Signed out (logout, a reset elsewhere, a deleted account) but
      // kept for a flash: off the user's list.
      if (session.userId !== undefined) session.unsetUser();
      return;
    }
    if (session.userId === String(userId)) return;
    session.setUser(String(userId), {
      address: context.remoteAddr?.hostname,
      userAgent: context.request.headers.get("user-agent") ?? undefined,
    });
  } catch {
    // A destroyed session: nothing to bind.
  }
}
