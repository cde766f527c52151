import { useSignals } from "@preact/signals-react/runtime";
import { MailPlus, Plus } from "../../../components/lucide";
import { useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { Alert, errorMessage } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths } from "../../../config/paths";
import { user, type SessionUser } from "../../../lib/auth";
import { lapsedPlanRule, usePlans, type Plan } from "../../../lib/plans";
import { showToast } from "../../../lib/toasts";
import { useMessages, type Message } from "../api/messages";
import { sendVerificationEmail } from "../api/verification";
import { HoldCard } from "./hold-card";
import { MessageDialog } from "./message-dialog";
import { MessageRow } from "./message-row";

// The session user carries the plan's message limit (null: none), so the rule of SPEC.md
// section 6 lives on the server alone; the live list keeps it current.
const unlimited = (u: SessionUser) => u.messageLimit === null;

const planName = (u: SessionUser, plans: Plan[] | undefined) => plans?.find((plan) => plan.id === u.planId)?.name ?? u.planId;

/** A paid plan that stopped being active (past due, canceled ...), not the free plan. */
const lapsed = (u: SessionUser) => u.planId !== "starter" && !u.planIsActive && u.stripeSubscriptionStatus !== "";

type Editing = { kind: "closed" } | { kind: "create" } | { kind: "edit"; message: Message };

function MessagesCard({ account }: { account: SessionUser }) {
  const { messages, more, loadMore, error, paused, resume, apply } = useMessages();
  const [loading, setLoading] = useState(false);
  const failed = messages?.filter((m) => m.status === "failed").length ?? 0;
  const [editing, setEditing] = useState<Editing>({ kind: "closed" });
  // ?edit=ID (the link of the email about a bouncing recipient) opens that message's dialog once.
  const [params, setParams] = useSearchParams();
  const editID = params.get("edit");
  useEffect(() => {
    if (!editID || messages === undefined) return;
    const target = messages.find((m) => m.id === editID);
    if (target) setEditing({ kind: "edit", message: target });
    setParams((p) => {
      p.delete("edit");
      return p;
    }, { replace: true });
  }, [editID, messages, setParams]);
  const limit = account.messageLimit;
  const mayAdd = messages !== undefined && (limit === null || messages.length < limit);

  const replace = (changed: Message) =>
    apply((list) =>
      list.some((m) => m.id === changed.id) ? list.map((m) => (m.id === changed.id ? changed : m)) : [changed, ...list],
    );

  return (
    <article>
      <header className="card-header">
        <h2>Messages</h2>
        <span className="control-tooltip" data-tooltip={mayAdd || messages === undefined ? undefined : "Upgrade your plan"} data-placement="left">
          <button type="button" className="with-icon" disabled={!mayAdd} onClick={() => setEditing({ kind: "create" })}>
            <Plus size={18} aria-hidden="true" />
            Add Message
          </button>
        </span>
      </header>
      {error && <Alert>{error}</Alert>}
      {paused && (
        <p className="notice">
          Live updates are paused here: this list is open in other windows too.{" "}
          <button type="button" className="outline secondary" onClick={resume}>
            Follow it here
          </button>
        </p>
      )}
      {failed > 0 && (
        <Alert>
          {failed === 1 ? "One message" : `${failed} messages`} could not be delivered: the reason is beside{" "}
          {failed === 1 ? "it" : "each"}.
        </Alert>
      )}
      {messages === undefined ? (
        !error && <Spinner label="Loading messages" />
      ) : messages.length === 0 ? (
        <div className="empty-state">
          <MailPlus size={32} aria-hidden="true" />
          <p>
            <strong>No messages yet.</strong>
          </p>
          <p>Write the letter you want someone to read later: Add Message opens it.</p>
        </div>
      ) : (
        <div className="overflow-auto">
          <table className="striped messages">
            <thead>
              <tr>
                <th scope="col" className="message-title">
                  Title
                </th>
                <th scope="col">Recipient</th>
                <th scope="col">Delivery date</th>
                <th scope="col">Days left</th>
                <th scope="col">Status</th>
                <th scope="col">Active</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {messages.map((message) => (
                <MessageRow
                  key={message.id}
                  message={message}
                  onChanged={replace}
                  onEdit={() => setEditing({ kind: "edit", message })}
                />
              ))}
            </tbody>
          </table>
          {more && (
            <button
              type="button"
              className="outline"
              aria-busy={loading}
              disabled={loading}
              onClick={() => {
                setLoading(true);
                void loadMore().finally(() => setLoading(false));
              }}
            >
              Load more
            </button>
          )}
        </div>
      )}
      {limit !== null && messages !== undefined && <footer className="muted">Remaining messages: {Math.max(limit - messages.length, 0)}</footer>}
      {editing.kind !== "closed" && (
        <MessageDialog
          key={editing.kind === "edit" ? editing.message.id : "new"}
          message={editing.kind === "edit" ? editing.message : undefined}
          recipientLimit={account.recipientLimit ?? 1}
          emailVerified={account.emailVerified}
          onSaved={(saved, stay) => {
            replace(saved);
            // A message saved with warnings, or with files uploading, stays open as the saved message.
            if (stay) setEditing({ kind: "edit", message: saved });
          }}
          onDeleted={(id) => apply((list) => list.filter((m) => m.id !== id))}
          onClose={() => setEditing({ kind: "closed" })}
        />
      )}
    </article>
  );
}

/** Asks a user whose address is unconfirmed to follow the email on its way, or send it again. */
function ConfirmEmailNotice({ email }: { email: string }) {
  const [sending, setSending] = useState(false);
  const again = async () => {
    setSending(true);
    try {
      await sendVerificationEmail();
      showToast(`The email is on its way to ${email}.`, { kind: "success" });
    } catch (error) {
      showToast(errorMessage(error), { kind: "error" });
    } finally {
      setSending(false);
    }
  };
  return (
    <p className="notice">
      We sent a confirmation email to {email}: it is on its way, and may take a few minutes (look in the spam folder
      too). Follow its link to confirm your address.{" "}
      <button type="button" className="outline secondary" aria-busy={sending} disabled={sending} onClick={() => void again()}>
        Send it again
      </button>
    </p>
  );
}

function InfoCard({ account, plans }: { account: SessionUser; plans: Plan[] | undefined }) {
  return (
    <article>
      <header>
        <h2>How it works</h2>
      </header>
      <p>
        Each message is emailed to its recipient on its delivery date. Ten days before, we send you a reminder with a
        link to postpone it; you can also postpone it here at any time.
      </p>
      <p>
        Your plan: <strong>{planName(account, plans)}</strong>
        {unlimited(account) ? null : (
          <>
            {" "}
            (<Link to={paths.pricing.href()}>upgrade for unlimited messages</Link>)
          </>
        )}
      </p>
    </article>
  );
}

/** The signed-in home: the user's messages and how the service works. */
export function DashboardPage({ paid }: { paid: boolean }) {
  useSignals();
  const account = user.value;
  const { plans } = usePlans();
  if (!account) return null;

  return (
    <section>
      <h1>Dashboard</h1>
      {paid &&
        (account.planIsActive ? (
          <Alert kind="success">You are now subscribed to the {planName(account, plans)} plan</Alert>
        ) : (
          <p className="notice" role="status">
            Thank you! Stripe is confirming your payment; this page shows your plan as soon as it does.
          </p>
        ))}
      {!paid && lapsed(account) && (
        <p className="notice" role="status">
          Your {planName(account, plans)} plan is not active ({account.stripeSubscriptionStatus.replaceAll("_", " ")}). {lapsedPlanRule}{" "}
          <Link to={paths.pricing.href()}>Choose a plan again</Link>
        </p>
      )}
      {!account.emailVerified && <ConfirmEmailNotice email={account.email} />}
      {account.name.trim() === "" && (
        <p className="notice">
          Recipients see who a message is from: <Link to={paths.settings.href("general")}>add your name in the settings</Link>.
        </p>
      )}
      <div className="dashboard">
        <MessagesCard account={account} />
        <InfoCard account={account} plans={plans} />
        <HoldCard account={account} />
      </div>
    </section>
  );
}
