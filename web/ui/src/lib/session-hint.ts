// The server sets this readable cookie beside the HttpOnly refresh cookie (docs/identity.md),
// so a visitor who never signed in is known to be signed out without a refused request. No
// React here: the first script reads it too (main.tsx).
const sessionHint = /(?:^|;\s*)(?:__Host-)?sl_session=1(?:;|$)/;

/** Whether this browser may hold a session (its refresh cookie is HttpOnly: only the hint shows). */
export const hasSessionHint = () => sessionHint.test(document.cookie);
