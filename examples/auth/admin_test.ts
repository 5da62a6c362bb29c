import assert from "node:assert/strict";
import { describeAdmins } from "./admin.ts";
import type { Role, User } from "./users.ts";

function user(id: number, role: Role): User {
  return {
    id,
    email: `user${id}@example.com`,
    password: "",
    name: `User ${id}`,
    role,
    createdAt: new Date(0),
  };
}

Deno.test("describeAdmins: names the admins there, without ADMIN_EMAIL", () => {
  assert.equal(
    describeAdmins([user(1, "user"), user(2, "admin")]),
    "Admin: user2@example.com.",
  );
  assert.equal(
    describeAdmins([1, 2, 3, 4, 5].map((id) => user(id, "admin"))),
    "Admins: user1@example.com, user2@example.com, user3@example.com and 2 more.",
  );
});

Deno.test("describeAdmins: no admin (moderators are not admins) says how to make one", () => {
  const line = describeAdmins([user(1, "moderator")]);
  assert.match(line, /^No admin yet\. To make one, start with ADMIN_EMAIL=/);
});
