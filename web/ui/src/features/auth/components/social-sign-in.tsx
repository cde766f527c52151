import { useEffect, useState } from "react";
import { refreshSession, user } from "../../../lib/auth";
import { getProviders, providerStartUrl, type Provider } from "../api/auth";

const lastUsedKey = "lastAuthProvider";

export const rememberProvider = (provider: string) => localStorage.setItem(lastUsedKey, provider);

/**
 * The social sign-in buttons, for the providers the server has configured (none: nothing
 * shows). The provider's popup ends by setting the refresh cookie, so a closed popup is
 * followed by a refresh of the session.
 */
export function SocialSignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [providers, setProviders] = useState<Provider[]>([]);
  const [waiting, setWaiting] = useState<string>();
  const lastUsed = localStorage.getItem(lastUsedKey);

  useEffect(() => {
    let live = true;
    void getProviders().then((list) => live && setProviders(list));
    return () => {
      live = false;
    };
  }, []);

  if (providers.length === 0) return null;

  const start = (provider: string) => {
    const popup = window.open(providerStartUrl(provider), "sendlater-sign-in", "popup,width=500,height=650");
    if (!popup) return;
    setWaiting(provider);
    const poll = setInterval(() => {
      if (!popup.closed) return;
      clearInterval(poll);
      void refreshSession().then(() => {
        setWaiting(undefined);
        if (user.peek()) {
          rememberProvider(provider);
          onSignedIn();
        }
      });
    }, 500);
  };

  return (
    <>
      <div className="social-sign-in">
        {providers.map((provider) => (
          <button
            key={provider.id}
            type="button"
            className="secondary outline"
            aria-busy={waiting === provider.id}
            disabled={waiting !== undefined}
            onClick={() => start(provider.id)}
          >
            {provider.name}
            {lastUsed === provider.id && <> <mark>Last used</mark></>}
          </button>
        ))}
      </div>
      <p className="separator">OR</p>
    </>
  );
}
