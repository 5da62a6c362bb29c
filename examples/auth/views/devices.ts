/**
 * The devices section of the security page: each device signed in, with
 * "Sign out" (a form with `_method=DELETE`), and "Sign out all other
 * devices". Plain forms: no script needed.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import type { Device } from "../devices.ts";
import { routes } from "../routes.ts";

function when(date: Date): SafeHtml {
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${
    iso.slice(11, 16)
  } UTC</time>`;
}

function deviceItem(device: Device): SafeHtml {
  const name = `${device.browser} on ${device.os}`;
  return html`
    <li class="device-item${device.current ? " current" : ""}">
      <div class="device-head">
        <p class="device-name"><strong>${name}</strong>${device.current
          ? html`
            <span class="badge verified">this device</span>
          `
          : null}</p>
        ${device.current ? null : html`
          <form method="post" action="${routes.sessions.remove.href({
            id: device.handle,
          })}" class="device-remove">
            <input type="hidden" name="_method" value="DELETE">
            <button type="submit" class="danger"
              aria-label="Sign out ${name}, last seen ${device.lastSeenAt
                .toISOString().slice(0, 16).replace(
                  "T",
                  " ",
                )} UTC">Sign out</button>
          </form>
        `}
      </div>
      <dl class="device-facts">
        <dt>Address</dt>
        <dd>${device.address ?? "unknown"}</dd>
        <dt>Signed in</dt>
        <dd>${when(device.signedInAt)}</dd>
        <dt>Last seen</dt>
        <dd>${when(device.lastSeenAt)}</dd>
      </dl>
    </li>
  `;
}

/**
 * The section; `devices` is `null` on a storage that cannot list
 * sessions (signed cookies).
 */
export function devicesSection(devices: Device[] | null): SafeHtml {
  if (devices === null) {
    return html`
      <section class="card" aria-labelledby="devices-heading" id="devices">
        <h2 id="devices-heading">Devices</h2>
        <p>This server keeps sessions in signed cookies, so it cannot list the devices you are signed in on. To sign out everywhere else, <a href="${routes
          .changePassword.index
          .href()}">change your password</a>: every other session ends.</p>
      </section>
    `;
  }
  const others = devices.filter((device) => !device.current).length;
  return html`
    <section class="card" aria-labelledby="devices-heading" id="devices">
      <h2 id="devices-heading">Devices</h2>
      <p>Where your account is signed in. A device you do not know? Sign it out, then change your password.</p>
      <ul class="devices">${devices.map(deviceItem)}</ul>
      ${others > 0
        ? html`
          <form method="post" action="${routes.sessions.others.href()}">
            <button type="submit" class="secondary">Sign out all other devices</button>
          </form>
        `
        : html`<p>No other device is signed in.</p>`}
    </section>
  `;
}
