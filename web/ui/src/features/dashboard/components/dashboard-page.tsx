import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { Link } from "react-router";
import { Alert } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths } from "../../../config/paths";
import { plans } from "../../../config/plans";
import { user, type SessionUser } from "../../../lib/auth";
import { useMessages, type Message } from "../api/messages";
import { MessageDialog } from "./message-dialog";
import { MessageRow } from "./message-row";

// Without an active paid plan a user keeps one message (SPEC.md section 6).
const freeMessages = 1;

const hasPaidPlan = (u: SessionUser) => u.planIsActive && (u.planId === "pro" || u.planId === "business");

const planName = (u: SessionUser) => plans.find((plan) => plan.id === u.planId)?.name ?? u.planId;

type Editing = { kind: "closed" } | { kind: "create" } | { kind: "edit"; message: Message };

function MessagesCard({ account }: { account: SessionUser }) {
  const { messages, error, apply } = useMessages();
  const [editing, setEditing] = useState<Editing>({ kind: "closed" });
  const paid = hasPaidPlan(account);
  const mayAdd = messages !== undefined && (messages.length === 0 || paid);

  const replace = (changed: Message) =>
    apply((list) =>
      list.some((m) => m.id === changed.id) ? list.map((m) => (m.id === changed.id ? changed : m)) : [changed, ...list],
    );

  return (
    <article>
      <header className="card-header">
        <h2>Messages</h2>
        <span className="control-tooltip" data-tooltip={mayAdd || messages === undefined ? undefined : "Upgrade your plan"} data-placement="left">
          <button type="button" disabled={!mayAdd} onClick={() => setEditing({ kind: "create" })}>
            Add Message
          </button>
        </span>
      </header>
      {error && <Alert>{error}</Alert>}
      {messages === undefined ? (
        !error && <Spinner label="Loading messages" />
      ) : messages.length === 0 ? (
        <p>You have no messages yet. Write your first one with Add Message.</p>
      ) : (
        <div className="overflow-auto">
          <table className="striped messages">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Recipient</th>
                <th scope="col">Delivery date</th>
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
        </div>
      )}
      {!paid && messages !== undefined && (
        <footer>Remaining messages: {Math.max(freeMessages - messages.length, 0)}</footer>
      )}
      {editing.kind !== "closed" && (
        <MessageDialog
          message={editing.kind === "edit" ? editing.message : undefined}
          onSaved={replace}
          onDeleted={(id) => apply((list) => list.filter((m) => m.id !== id))}
          onClose={() => setEditing({ kind: "closed" })}
        />
      )}
    </article>
  );
}

function InfoCard({ account }: { account: SessionUser }) {
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
        Your plan: <strong>{planName(account)}</strong>
        {hasPaidPlan(account) ? null : (
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
  if (!account) return null;

  return (
    <section>
      <h1>Dashboard</h1>
      {paid && account.planIsActive && (
        <Alert kind="success">You are now subscribed to the {planName(account)} plan</Alert>
      )}
      {account.name.trim() === "" && (
        <p className="notice">
          Recipients see who a message is from: <Link to={paths.settings.href("general")}>add your name in the settings</Link>.
        </p>
      )}
      <div className="dashboard">
        <MessagesCard account={account} />
        <InfoCard account={account} />
      </div>
    </section>
  );
}
