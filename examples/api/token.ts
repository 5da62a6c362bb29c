/**
 * Prints a bearer token for the notes API's write routes, signed with
 * `API_JWT_SECRET` (or the development secret), for local use:
 *
 *     TOKEN=$(deno run -P=api-token examples/api/token.ts ada 1h)
 *     curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
 *       -d '{"title":"Hi"}' http://127.0.0.1:8010/notes
 *
 * Arguments: the subject (default `developer`) and the lifetime (default
 * `1h`; `30m`, `7d`, or seconds).
 *
 * @module
 */
import { apiSecret, issueToken } from "./auth.ts";

const [subject = "developer", expiresIn = "1h"] = Deno.args;
const secret = apiSecret((name) => Deno.env.get(name));
console.log(
  await issueToken(
    secret,
    subject,
    /^\d+$/.test(expiresIn) ? Number(expiresIn) : expiresIn,
  ),
);
