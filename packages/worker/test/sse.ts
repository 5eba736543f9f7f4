/** `fetch` as a user (`Authorization: Bearer <user>`), JSON body. */
export function as(user: string, base: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${user}`,
        'Content-Type': 'application/json',
        ...(init.headers ?? {}),
      },
    });
}
