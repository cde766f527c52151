import { useSignals } from "@preact/signals-react/runtime";
import { useCallback, useEffect, useState } from "react";
import { Alert, errorMessage } from "../../../components/form";
import { updateUser, user } from "../../../lib/auth";
import { getProviders, providerName, useProviderPopup, type Provider } from "../../../lib/social";
import { getMe, listLinkedAccounts, startLink, unlinkProvider, type LinkedAccount } from "../api/account";
import { useRecentLogin } from "./reauth";

/**
 * Settings → General's sign-in methods: the password and the linked providers, in the order
 * they were added (the first is asked for when signing in again). Another configured provider
 * links in a popup; one unlinks while another way to sign in remains. Both need a recent
 * sign-in, which the dialog asks for.
 */
export function LinkedAccounts() {
  useSignals();
  const account = user.value;
  const { guard, dialog } = useRecentLogin();
  const [links, setLinks] = useState<LinkedAccount[]>();
  const [offered, setOffered] = useState<Provider[]>([]);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const reload = useCallback(
    () =>
      listLinkedAccounts().then(
        (list) => setLinks(list),
        (caught: unknown) => setError(errorMessage(caught)),
      ),
    [],
  );

  useEffect(() => {
    void reload();
    void getProviders().then(setOffered);
  }, [reload]);

  const { waiting, open } = useProviderPopup("link", (result) => {
    if (result.status !== "success") {
      setError(result.message);
      return;
    }
    setNotice(result.message);
    void reload();
    void getMe().then(updateUser);
  });

  if (!account) return null;
  const methods = account.providers.length;
  const linked = new Set(links?.map((l) => l.provider));

  const act = (what: () => Promise<void>) => {
    setError(undefined);
    setNotice(undefined);
    guard(what).catch((caught: unknown) => setError(errorMessage(caught)));
  };
  const link = (provider: string) => act(() => open(provider, () => startLink(provider)));
  const unlink = (provider: string) =>
    act(async () => {
      updateUser(await unlinkProvider(provider));
      setNotice(`${providerName(provider)} is unlinked.`);
      await reload();
    });

  return (
    <section aria-labelledby="sign-in-methods">
      <h2 id="sign-in-methods">Sign-in methods</h2>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <ul className="sign-in-methods">
        {account.providers.includes("password") && <li>Password</li>}
        {links?.map((l) => (
          <li key={l.provider}>
            {l.name}
            {l.email && <small> ({l.email})</small>}
            {!l.confirmed && <small> (waiting for the email confirmation)</small>}{" "}
            <button
              type="button"
              className="secondary outline"
              disabled={methods < 2}
              title={methods < 2 ? "Your only way to sign in" : undefined}
              onClick={() => unlink(l.provider)}
            >
              Unlink {l.name}
            </button>
          </li>
        ))}
      </ul>
      {offered
        .filter((p) => links !== undefined && !linked.has(p.id))
        .map((p) => (
          <button
            key={p.id}
            type="button"
            className="outline"
            aria-busy={waiting === p.id}
            disabled={waiting !== undefined}
            onClick={() => link(p.id)}
          >
            Link {p.name}
          </button>
        ))}
      {dialog}
    </section>
  );
}
