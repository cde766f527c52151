import { useEffect, useState } from "react";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { refreshSession, user, type SecondFactorChallenge } from "../../../lib/auth";
import { getProviders, providerName, providerStartUrl, useProviderPopup, type PopupResult, type Provider } from "../../../lib/social";
import { signUpWithEmail } from "../api/auth";

const lastUsedKey = "lastAuthProvider";

export const rememberProvider = (provider: string) => localStorage.setItem(lastUsedKey, provider);

/** A provider that gave no email address (X): the person types one, confirmed by the usual email. */
function EmailForProvider({ asked }: { asked: PopupResult }) {
  const [sentTo, setSentTo] = useState<string>();
  const form = useForm({ email: "" }, (values) => requireFields(values, { email: "Please enter your email" }));
  const name = providerName(asked.provider);

  const submit = form.handleSubmit(async ({ email }) => {
    await signUpWithEmail(asked.provider, email);
    setSentTo(email);
  });

  if (sentTo) {
    return (
      <Alert kind="success">
        We sent a link to {sentTo}: confirm your address with it, then sign in with {name} again.
      </Alert>
    );
  }
  return (
    <form onSubmit={submit} noValidate aria-label={`Your email for ${name}`}>
      <p>{asked.message}</p>
      {form.alert && <Alert>{form.alert}</Alert>}
      <TextField label="Email" type="email" autoComplete="email" autoFocus {...form.bind("email")} />
      <SubmitButton busy={form.busy}>Continue</SubmitButton>
    </form>
  );
}

/**
 * The social sign-in buttons, for the providers the server has configured (none: nothing
 * shows), above "OR"; the one used last is marked. A button opens the provider in a popup,
 * whose last page hands back the result: signed in (it set the refresh cookie), the code step
 * of an account with a second factor, an error to show, or, from a provider that gave no email
 * address, the question for one.
 */
export function SocialSignIn({
  onSignedIn,
  onSecondFactor,
}: {
  onSignedIn: () => void;
  onSecondFactor?: (challenge: SecondFactorChallenge) => void;
}) {
  const [providers, setProviders] = useState<Provider[]>([]);
  const [error, setError] = useState<string>();
  const [asked, setAsked] = useState<PopupResult>();
  // None in the build's prerender (Node), where no provider shows either.
  const lastUsed = typeof localStorage === "undefined" ? null : localStorage.getItem(lastUsedKey);
  const { waiting, open } = useProviderPopup("", (result) => {
    if (result.status === "success") {
      void refreshSession().then(() => {
        if (!user.peek()) return;
        rememberProvider(result.provider);
        onSignedIn();
      });
    } else if (result.status === "second-factor" && result.secondFactor && onSecondFactor) {
      rememberProvider(result.provider);
      onSecondFactor(result.secondFactor);
    } else if (result.code === "auth/email-required") {
      setAsked(result);
    } else {
      setError(result.message);
    }
  });

  useEffect(() => {
    let live = true;
    void getProviders().then((list) => live && setProviders(list));
    return () => {
      live = false;
    };
  }, []);

  if (providers.length === 0) return null;

  const start = (provider: string) => {
    setError(undefined);
    setAsked(undefined);
    open(provider, providerStartUrl(provider)).catch((caught: unknown) => setError(errorMessage(caught)));
  };

  return (
    <>
      {error && <Alert>{error}</Alert>}
      {asked ? (
        <EmailForProvider asked={asked} />
      ) : (
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
              {lastUsed === provider.id && (
                <>
                  {" "}
                  <mark>Last used</mark>
                </>
              )}
            </button>
          ))}
        </div>
      )}
      <p className="separator">OR</p>
    </>
  );
}
