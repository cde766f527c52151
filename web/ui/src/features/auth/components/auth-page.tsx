import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { Alert, requireFields, SubmitButton, TextField, useForm, type FieldErrors } from "../../../components/form";
import { paramTitle } from "../../../config/pages";
import { paths, type AuthType } from "../../../config/paths";
import { signIn, signUp, type SecondFactorChallenge } from "../../../lib/auth";
import { useHydrated } from "../../../lib/hydrated";
import { readPublicSettings } from "../../../lib/public-settings";
import { confirmPasswordReset, requestPasswordReset } from "../api/auth";
import { PasskeySignIn, usePasskeyAutofill } from "./passkey-sign-in";
import { SecondFactorForm } from "./second-factor-form";
import { rememberProvider, SocialSignIn } from "./social-sign-in";

const buttonLabels: Record<AuthType, string> = {
  signup: "Sign up",
  signin: "Sign in",
  forgotpass: "Send reset email",
  changepass: "Change password",
};

const successMessages: Partial<Record<AuthType, string>> = {
  forgotpass: "Password reset email sent",
  changepass: "Your password has been changed",
};

type Field = "email" | "password" | "confirm";

const fieldsOf: Record<AuthType, Field[]> = {
  signup: ["email", "password", "confirm"],
  signin: ["email", "password"],
  forgotpass: ["email"],
  changepass: ["password", "confirm"],
};

const requiredMessages: Record<Field, string> = {
  email: "Please enter your email",
  password: "Please enter a password",
  confirm: "Please enter your password again",
};

function validate(type: AuthType, values: Record<Field, string>) {
  const shown = fieldsOf[type];
  const errors: FieldErrors<Field> = requireFields(
    values,
    Object.fromEntries(shown.map((field) => [field, requiredMessages[field]])),
  );
  if (shown.includes("confirm") && !errors.confirm && values.confirm !== values.password) {
    errors.confirm = "This doesn't match your password";
  }
  return errors;
}

function Footer({ type, next }: { type: AuthType; next?: string }) {
  switch (type) {
    case "signup":
      return (
        <>
          <p>
            <small>
              By signing up, you are agreeing to our{" "}
              <Link to={paths.legal.href("terms-of-service")}>Terms of Service</Link> and{" "}
              <Link to={paths.legal.href("privacy-policy")}>Privacy Policy</Link>.
            </small>
          </p>
          <p>
            Have an account already? <Link to={paths.auth.href("signin", next)}>Sign in</Link>
          </p>
        </>
      );
    case "signin":
      return (
        <p className="auth-links">
          <Link to={paths.auth.href("signup", next)}>Create an account</Link>
          <Link to={paths.auth.href("forgotpass", next)}>Forgot Password?</Link>
        </p>
      );
    case "forgotpass":
      return (
        <p>
          Remember it after all? <Link to={paths.auth.href("signin", next)}>Sign in</Link>
        </p>
      );
    case "changepass":
      return null;
  }
}

/**
 * Sign up, sign in, request a password reset, or choose a new password with the reset
 * email's code. `next` is where a signed-in user goes; links between the forms keep it
 * unless it is the default.
 */
export function AuthPage({ type, next, oobCode }: { type: AuthType; next: string; oobCode: string }) {
  const navigate = useNavigate();
  const [done, setDone] = useState(false);
  // A sign-in to an account with a second factor: the code step, with the email for a proof of work.
  const [second, setSecond] = useState<{ challenge: SecondFactorChallenge; email?: string }>();
  const form = useForm<Field>({ email: "", password: "", confirm: "" }, (values) => validate(type, values));
  const keptNext = next === paths.dashboard.href() ? undefined : next;

  const signedIn = () => navigate(next, { replace: true });
  // Passkeys where the server does them; the prerender (no settings) shows the button, so the page does not move.
  const hydrated = useHydrated();
  const passkeys = type === "signin" && !second && (!hydrated || readPublicSettings().passkeys === true);
  // Sign-in: a passkey from the email field's autofill, stopped while the password form is sent.
  const autofill = usePasskeyAutofill(passkeys && hydrated, () => void signedIn(), form.setAlert);

  const submit = form.handleSubmit(async ({ email, password }) => {
    switch (type) {
      case "signup":
        await signUp(email, password);
        rememberProvider("password");
        return signedIn();
      case "signin": {
        await autofill.stop();
        let challenge;
        try {
          challenge = await signIn(email, password);
        } catch (error) {
          autofill.restart();
          throw error;
        }
        rememberProvider("password");
        if (challenge) return setSecond({ challenge, email });
        return signedIn();
      }
      case "forgotpass":
        await requestPasswordReset(email);
        return setDone(true);
      case "changepass":
        await confirmPasswordReset(oobCode, password);
        return setDone(true);
    }
  });

  const shown = fieldsOf[type];
  const success = successMessages[type];

  return (
    <section className="auth">
      <article>
        <header>
          <h1>{paramTitle("auth", type)}</h1>
        </header>
        {second ? (
          <SecondFactorForm
            challenge={second.challenge}
            email={second.email}
            onSignedIn={signedIn}
            onRestart={() => setSecond(undefined)}
          />
        ) : (
          (type === "signup" || type === "signin") && (
            <SocialSignIn onSignedIn={signedIn} onSecondFactor={(challenge) => setSecond({ challenge })} />
          )
        )}
        {second ? null : done && success ? (
          <>
            <Alert kind="success">{success}</Alert>
            {type === "forgotpass" && (
              <p>
                If an account uses this address, the email is on its way: it may take a few minutes (look in the spam
                folder too), and its link works for one hour.
              </p>
            )}
            {type === "changepass" && <Link to={paths.auth.href("signin", keptNext)}>Sign in</Link>}
          </>
        ) : (
          // POST: prerendered, the form can be sent before the app runs, or with JavaScript off; never its password in a URL.
          <form onSubmit={submit} method="post" noValidate>
            {form.alert && <Alert>{form.alert}</Alert>}
            {shown.includes("email") && (
              <TextField
                label="Email"
                type="email"
                autoComplete={type === "signin" ? "username webauthn" : "email"}
                {...form.bind("email")}
              />
            )}
            {shown.includes("password") && (
              <TextField
                label={type === "changepass" ? "New password" : "Password"}
                type="password"
                autoComplete={type === "signin" ? "current-password" : "new-password"}
                {...form.bind("password")}
              />
            )}
            {shown.includes("confirm") && (
              <TextField label="Confirm password" type="password" autoComplete="new-password" {...form.bind("confirm")} />
            )}
            <SubmitButton busy={form.busy}>{buttonLabels[type]}</SubmitButton>
          </form>
        )}
        {passkeys && <PasskeySignIn onSignedIn={() => void signedIn()} autofill={autofill} />}
        <footer>
          <Footer type={type} next={keptNext} />
        </footer>
      </article>
    </section>
  );
}
