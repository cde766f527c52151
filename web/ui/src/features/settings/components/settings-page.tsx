import { useSignals } from "@preact/signals-react/runtime";
import { CreditCard, KeyRound, ShieldCheck, UserRound, type LucideIcon } from "../../../components/lucide";
import { useEffect, useState } from "react";
import { NavLink, useNavigate } from "react-router";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm, type FieldErrors } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths, type SettingsSection } from "../../../config/paths";
import { ApiError } from "../../../lib/api-client";
import { updateUser, user, type SessionUser } from "../../../lib/auth";
import { readPublicSettings } from "../../../lib/public-settings";
import { changePassword, createBillingSession, updateProfile } from "../api/account";
import { AccessTokens } from "./access-tokens";
import { FilesAndData } from "./files-and-data";
import { LinkedAccounts } from "./linked-accounts";
import { Passkeys } from "./passkeys";
import { RemindersForm } from "./reminders-form";
import { SecondFactor } from "./second-factor";
import { useRecentLogin } from "./reauth";
import { Sessions } from "./sessions";

export const sectionTitles: Record<SettingsSection, string> = {
  general: "General",
  password: "Password",
  security: "Security",
  billing: "Billing",
};

const sectionIcons: Record<SettingsSection, LucideIcon> = {
  general: UserRound,
  password: KeyRound,
  security: ShieldCheck,
  billing: CreditCard,
};

function GeneralForm({ account }: { account: SessionUser }) {
  const [saved, setSaved] = useState(false);
  const { guard, dialog } = useRecentLogin();
  const form = useForm({ name: account.name, email: account.email }, (values) =>
    requireFields(values, { name: "Please enter your name", email: "Please enter your email" }),
  );

  const submit = form.handleSubmit(async ({ name, email }) => {
    setSaved(false);
    await guard(async () => updateUser(await updateProfile({ name, email })));
    setSaved(true);
  });

  return (
    <>
      <form onSubmit={submit} noValidate aria-labelledby="profile-title">
        <h2 id="profile-title">Profile</h2>
        <p className="muted">Recipients see your name on each message; reminders go to your email.</p>
        {form.alert && <Alert>{form.alert}</Alert>}
        {saved && <Alert kind="success">Your profile has been updated</Alert>}
        <TextField label="Name" autoComplete="name" {...form.bind("name")} />
        <TextField label="Email" type="email" autoComplete="email" {...form.bind("email")} />
        <SubmitButton busy={form.busy}>Save</SubmitButton>
      </form>
      {dialog}
    </>
  );
}

type PasswordField = "password" | "confirm";

function PasswordForm() {
  const [saved, setSaved] = useState(false);
  const { guard, dialog } = useRecentLogin();
  const form = useForm<PasswordField>({ password: "", confirm: "" }, (values) => {
    const errors: FieldErrors<PasswordField> = requireFields(values, {
      password: "Please enter a password",
      confirm: "Please enter your new password again",
    });
    if (!errors.confirm && values.confirm !== values.password) errors.confirm = "This doesn't match your password";
    return errors;
  });

  const submit = form.handleSubmit(async ({ password }) => {
    setSaved(false);
    await guard(() => changePassword(password).then(() => undefined));
    form.setValues({ password: "", confirm: "" });
    setSaved(true);
  });

  return (
    <>
      <form onSubmit={submit} noValidate aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        {form.alert && <Alert>{form.alert}</Alert>}
        {saved && <Alert kind="success">Your password has been updated</Alert>}
        <TextField label="New password" type="password" autoComplete="new-password" {...form.bind("password")} />
        <TextField label="Confirm new password" type="password" autoComplete="new-password" {...form.bind("confirm")} />
        <SubmitButton busy={form.busy}>Change password</SubmitButton>
      </form>
      {dialog}
    </>
  );
}

/** An active plan goes to the card provider's billing portal; any other plan, or one without a Stripe customer, is chosen on the pricing page. */
function Billing({ account }: { account: SessionUser }) {
  const navigate = useNavigate();
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (!account.planIsActive) {
      void navigate(paths.pricing.href(), { replace: true });
      return;
    }
    let live = true;
    createBillingSession(new URL(paths.settings.href("general"), window.location.origin).href).then(
      ({ url }) => live && window.location.assign(url),
      (caught: unknown) => {
        if (!live) return;
        // A plan granted without Stripe has no portal: plans are chosen on the pricing page.
        if (caught instanceof ApiError && caught.code === "billing/no-customer") void navigate(paths.pricing.href(), { replace: true });
        else setError(errorMessage(caught));
      },
    );
    return () => {
      live = false;
    };
  }, [account.planIsActive, navigate]);

  return error ? <Alert>{error}</Alert> : <Spinner />;
}

export function SettingsPage({ section }: { section: SettingsSection }) {
  useSignals();
  const account = user.value;
  if (!account) return null;

  return (
    <section>
      <h1>Settings</h1>
      <div className="settings-layout">
        <nav aria-label="Settings" className="settings-nav">
          <ul>
            {(Object.entries(sectionIcons) as [SettingsSection, LucideIcon][]).map(([tab, TabIcon]) => (
              <li key={tab}>
                <NavLink to={paths.settings.href(tab)} className="with-icon">
                  <TabIcon size={18} aria-hidden="true" />
                  {sectionTitles[tab]}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        {/* Each section is a card with its own save. One filled button per screen (the profile's
            Save, the password's, or Security's Add a passkey): the other forms' buttons are outlined, and none spans the
            page (app.css .settings-panel). */}
        <div className="settings-panel">
          {section === "general" && (
            <>
              <article className="settings-section">
                <GeneralForm account={account} />
              </article>
              <article className="settings-section">
                <RemindersForm account={account} />
              </article>
              <article className="settings-section">
                <LinkedAccounts />
              </article>
              <article className="settings-section">
                <FilesAndData />
              </article>
            </>
          )}
          {section === "password" && (
            <article className="settings-section">
              <PasswordForm />
            </article>
          )}
          {section === "security" && (
            <>
              {readPublicSettings().passkeys && (
                <article className="settings-section">
                  <Passkeys account={account} />
                </article>
              )}
              <article className="settings-section">
                <SecondFactor account={account} />
              </article>
              <article className="settings-section">
                <Sessions account={account} />
              </article>
              <article className="settings-section">
                <AccessTokens account={account} />
              </article>
            </>
          )}
          {section === "billing" && <Billing account={account} />}
        </div>
      </div>
    </section>
  );
}
