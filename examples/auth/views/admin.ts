/**
 * The admin pages. Role changes are `PUT /admin/users/:id`; an HTML form
 * can only POST, so each form carries `_method=PUT` for `methodOverride()`.
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import { ROLES, type User } from "../users.ts";
import { routes } from "../routes.ts";
import { page } from "./layout.ts";

function roleForm(user: User, self: boolean) {
  if (self) {
    return html`<span class="role">${user.role}</span> <small>(you)</small>`;
  }
  return html`
    <form method="post" action="${routes.admin.updateUser.href({
      id: user.id,
    })}" class="inline">
      <input type="hidden" name="_method" value="PUT">
      <label class="visually-hidden"
        for="role-${user.id}">Role of ${user.email}</label>
      <select id="role-${user.id}" name="role">${ROLES.map((role) =>
        html`<option value="${role}" ${
          role === user.role ? "selected" : ""
        }>${role}</option>`
      )}</select>
      <button type="submit">Save</button>
    </form>
  `;
}

/** The list of users, with a role form for each (admins only). */
export function usersPage(
  users: User[],
  me: User,
  flash: { error?: string; notice?: string },
): Response {
  const rows = users.map((user) =>
    html`
      <tr>
        <td class="id">${user.id}</td>
        <td class="name">${user.name}</td>
        <td class="email">${user.email}</td>
        <td class="role-cell">${roleForm(user, user.id === me.id)}</td>
      </tr>
    `
  );
  return page(
    html`
      <table class="users">
        <caption>${users.length} registered users</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>${rows}</tbody>
      </table>
    `,
    { title: "Users", user: me, ...flash, path: routes.admin.users.href() },
  );
}

/** The settings page (admins and moderators). */
export function settingsPage(me: User): Response {
  return page(
    html`<p>Settings are for admins and moderators. You are ${
      me.role === "admin" ? "an" : "a"
    } <span class="role">${me.role}</span>.</p>
<p>This page shows how <code>requireRole("admin", "moderator")</code> lets two roles in.</p>`,
    { title: "Settings", user: me, path: routes.admin.settings.href() },
  );
}
