"""Readable English support articles: the help centre of osFoundry, a made-up team workspace product, for the demo.

Layer: content, beside workload.py and like it below everything that fills a store:
the server's demo takes its knowledge base from here, so that an agent asking "how do
I reset my password" finds an article that answers it. The simulations keep
workload.py's made-up vocabulary; only the demo reads English. It never opens a store
or calls a tool; it only draws from a random.Random it is given.

Glossary:
  subject     one thing customers ask about (password-reset, card-declined): a stable key, a category, a
              title, and the parts of its article written out in SUBJECTS
  catalogue   the SUBJECTS in the order articles are written: the four categories taken in turn, so the
              first 80 articles are 80 different subjects
  qualifier   what a variant is about: a device (Android), a role (admin), a plan (Enterprise), a data region
              or a billing country; it has a phrase for the title and a note for the body
  axis        the qualifiers of one kind; a subject names the axes that make sense for it
  variant     an article of one subject for one or more qualifiers, one of each of as many axes: its title
              names them ("Reset your password on Android") and its body carries their notes
  level       how many qualifiers a variant has: every level-1 variant is written before any level-2 one
  ask         a question a customer types about a subject, in their own words; every article quotes its
              subject's two, which also makes the words of questions ("how", "I", "my") common, so that
              search weighs them little
  note        a "Note: " paragraph of an article, general to its category; a revision adds or changes one
  revision    the body a colleague saves after an edit: a step reworded or its menu path written otherwise, a
              note added or changed, or a new closing line; never the body it started from

Left out on purpose: links between articles, images and markup (bodies are plain text: paragraphs split by a
blank line, steps as lines "1. ..."), and any language but English.
"""

import dataclasses
import itertools
import random
from typing import Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

CATEGORIES = ("accounts", "billing", "integrations", "troubleshooting")
NOTE_SHARE = 0.4  # share of articles written with a "Note: " paragraph
NOTED_QUALIFIERS = 1  # an article of more qualifiers is long enough with their notes, and gets no "Note: "
MAX_NOTES = 2  # "Note: " paragraphs a revision may grow an article to
NOTE = "Note: "
TAP_DEVICES = ("iphone", "ipad", "android")  # where a step says "tap", not "click"


@dataclasses.dataclass(frozen=True)
class HelpArticle:
    """One help centre article as first written: its subject's key, category, title and body."""

    title: str
    content: str
    category: str
    subject: str  # a short stable key such as "password-reset", the same for all its variants


class Subject(NamedTuple):
    """One thing customers ask about, and the parts of its article; {click} and {Click} become tap on phones."""

    key: str
    category: str
    title: str
    topic: str  # a noun phrase the opening sentence names: "resetting a forgotten password"
    summary: str  # what it is, a few sentences
    steps: Tuple[str, ...]
    trouble: str  # what to do if the steps do not work
    asks: Tuple[str, ...]  # questions customers ask about it, in their own words
    axes: Tuple[str, ...]  # the kinds of qualifier its variants take, in the order a title names them


class Qualifier(NamedTuple):
    """One value of an axis: how a title names it, and what an article of it adds."""

    key: str
    phrase: str  # "on Android"; in brackets at the end of a title when bracketed: "Enterprise plan"
    note: str
    bracketed: bool = False


# ---------------------------------------------------------------------------
# The catalogue: (key, title, topic, summary, steps, trouble) per subject, about 20 per category.

Written = Tuple[str, str, str, str, Tuple[str, ...], str]  # one subject as the catalogue writes it

ACCOUNTS: List[Written] = [
    ("password-reset", "Reset your password", "resetting a forgotten password",
     "If you have forgotten your password, you can set a new one from the sign-in page without asking anyone. "
     "osFoundry emails you a reset link that works once and expires after 60 minutes. Your workspaces, records "
     "and knowledge bases are not touched by a password reset.",
     ("Go to the osFoundry sign-in page and {click} Forgot password?",
      "Enter the email address you sign in with and {click} Send reset link.",
      "Open the email titled \"Reset your osFoundry password\" and {click} the link inside it.",
      "Type a new password of at least 12 characters, then type it again to confirm it.",
      "{Click} Save password. You are signed in here and signed out on your other devices."),
     "If the email has not arrived after five minutes, look in your spam or junk folder and check that you "
     "typed the address you registered with. A link that says it has expired was either used already or is "
     "more than an hour old, so request a new one. If your workspace uses single sign-on, your password belongs "
     "to your company's identity provider, and your IT team has to reset it there."),
    ("sign-in-problems", "Can't log in? Fix common sign-in problems", "problems logging in",
     "Most sign-in problems come from a mistyped email address, an old password saved by the browser, or "
     "logging in with a different method from the one used at sign-up. Knowing which method you registered "
     "with usually solves it: email and password, Google, Microsoft, or your company's single sign-on.",
     ("Check the address in the email field for typos, and make sure it is the one your invitation was sent to.",
      "If you registered with Google or Microsoft, {click} Continue with Google or Continue with Microsoft "
      "instead of typing a password.",
      "If your company uses single sign-on, {click} Sign in with SSO and enter your work email.",
      "Still refused? {Click} Forgot password? to set a new password by email.",
      "Try a private browser window to rule out an old saved password or a browser extension."),
     "If you see \"Account locked\", wait 15 minutes or follow the unlock link we emailed you. If the page "
     "reloads without logging you in, your browser may be blocking cookies for osFoundry; allow them and try "
     "again. When none of this works, write to support from the Help link on the sign-in page and tell us the "
     "email address and the exact message you see."),
    ("two-factor-setup", "Turn on two-factor authentication (2FA)", "two-factor authentication",
     "Two-factor authentication (2FA) adds a second check when you sign in: after your password, osFoundry asks "
     "for a six-digit code from an authenticator app on your phone. Even if someone learns your password, they "
     "cannot get into your account without that code.",
     ("Open your profile menu and {click} Settings, then Security.",
      "Under Two-factor authentication, {click} Turn on.",
      "Scan the QR code with an authenticator app such as Google Authenticator, Microsoft Authenticator or "
      "1Password.",
      "Enter the six-digit code the app shows, to confirm that it is set up.",
      "Download or print your ten recovery codes and keep them somewhere safe, away from your phone."),
     "If osFoundry says the first code is invalid, the clock on your phone is probably out of step: turn on "
     "automatic date and time in the phone's settings and try a fresh code. Workspace admins can require 2FA "
     "for everyone; then you are asked to set it up the next time you sign in, and cannot skip it."),
    ("lost-2fa-device", "Lost your phone? Sign in with a recovery code",
     "signing in when your two-factor phone is lost",
     "If the phone with your authenticator app is lost, broken or replaced, you can still get into your account "
     "with one of the recovery codes you saved when you turned on two-factor authentication. Each recovery code "
     "works only once, so cross it off after using it.",
     ("On the sign-in page, enter your email and password as usual.",
      "When you are asked for a code, {click} Use a recovery code.",
      "Type one of your unused recovery codes, with or without the dash.",
      "Once you are in, open Settings, then Security, and {click} Reset two-factor authentication.",
      "Set up the authenticator app on your new phone and save the new set of recovery codes."),
     "If you have no recovery codes left, ask an admin of your workspace to reset two-factor authentication for "
     "you from Admin, then Members; you set it up again at your next sign-in. If you are the only admin, "
     "contact support from the sign-in page. We verify your identity before removing 2FA, which can take up to "
     "two business days."),
    ("sso-saml", "Set up single sign-on (SSO) with SAML", "single sign-on with SAML",
     "Single sign-on lets your team sign in to osFoundry through your company's identity provider, such as Okta, "
     "Microsoft Entra ID or Google Workspace, instead of keeping separate passwords. SSO with SAML comes with the "
     "Business and Enterprise plans and is set up by a workspace owner or admin.",
     ("In osFoundry, open Admin, then Security, and {click} Configure SSO.",
      "Copy the ACS URL and the Entity ID shown on that page.",
      "In your identity provider, create a new SAML application and paste both values into it.",
      "Download the identity provider's metadata XML file and upload it in osFoundry.",
      "{Click} Test sign-in and, once it succeeds, choose whether SSO is optional or required."),
     "A \"SAML response invalid\" error usually means the email attribute is missing or the certificate has "
     "expired; check that the application sends the user's email address as the NameID. Keep at least one "
     "owner able to sign in with a password until you are sure SSO works, so that one mistake cannot lock "
     "everyone out."),
    ("change-email", "Change the email address of your account", "changing the email address you sign in with",
     "You can change the email address you use to sign in and to receive notifications. Your records, articles "
     "and workspace memberships stay with your account; only the address changes. For your safety, the new "
     "address takes effect once you confirm it.",
     ("Open your profile menu and {click} Settings, then Account.",
      "Next to Email address, {click} Change.",
      "Enter the new address and your current password.",
      "Open the confirmation email sent to the new address and {click} Confirm email.",
      "Sign in with the new address from now on; the old address receives a notice of the change."),
     "If osFoundry says the address is already in use, another account was created with it: sign in to that "
     "account and delete it, or change its email first. If your workspace uses SSO, your email comes from the "
     "identity provider and your IT team changes it there. A confirmation link expires after 24 hours, so "
     "request a new one if yours is older."),
    ("profile-update", "Update your name and profile photo", "your name, photo and other profile details",
     "Your profile is what teammates see next to your comments, edits and assignments: your display name, your "
     "photo, your job title and your time zone. A clear photo and a full name make it easy for people to know "
     "who changed what.",
     ("Open your profile menu and {click} Settings, then Profile.",
      "Edit your full name and your display name; the display name is the one used in mentions.",
      "{Click} Upload photo and pick a square picture of at least 256 by 256 pixels.",
      "Add your job title, so that people know whom to ask about what.",
      "{Click} Save changes."),
     "If the photo does not upload, make sure it is a JPG or PNG file under 5 MB. If your name cannot be "
     "edited, your workspace takes names from its identity provider through SSO or SCIM, so ask your IT team "
     "to update it there. Changes can take a minute to reach your teammates' screens."),
    ("roles-permissions", "Roles: what differs between owners, admins, members and guests",
     "the roles people have and what each can do",
     "Every person in a workspace has one role, and the difference between roles is what each may do. Owners "
     "control billing and can delete the workspace. Admins "
     "manage members, integrations and security settings. Members create and edit the knowledge bases and record "
     "channels they can access. Guests see only the spaces they were invited to, with the access they were given.",
     ("To see everyone's role, open Admin, then Members.",
      "Find the person and {click} the role shown next to their name.",
      "Pick the new role: Admin, Member or Guest.",
      "Confirm the change; the person has the new permissions the next time a page loads."),
     "Only owners and admins can change roles, and only an owner can make someone else an owner. If the role "
     "menu is greyed out, the person is managed by SCIM provisioning, and their role follows their group in "
     "your identity provider. Guests do not take a paid seat on any plan."),
    ("invite-teammates", "Invite teammates to your workspace", "inviting people to your workspace",
     "To bring someone into your workspace, send them an invitation by email or share an invite link with them. "
     "Invited people choose their own password, or sign in with Google, Microsoft or SSO, and land directly in "
     "your workspace.",
     ("{Click} Invite people at the bottom of the sidebar.",
      "Type one or more email addresses, separated by commas.",
      "Choose the role they will have: Member or Guest, and for guests the spaces they may see.",
      "{Click} Send invitations. Each person receives an email with a Join button.",
      "To invite many people at once, {click} Copy invite link instead and share it in your team chat."),
     "If the Invite people button is missing, your admins allow only admins to invite. Invitations expire "
     "after 7 days and can be sent again from Admin, then Members, then Pending. On paid plans each new member "
     "adds a seat to your next invoice."),
    ("invitation-not-received", "Teammate didn't receive the invitation email", "invitations that never arrive",
     "When a person you invited says the invitation never came, the email was usually filtered, sent to a "
     "mistyped address, or held by their company's mail server. You can see the invitation's status and "
     "send it again.",
     ("Open Admin, then Members, and {click} the Pending tab.",
      "Check the address for typos; if it is wrong, {click} Revoke and invite the right address.",
      "{Click} Resend next to the invitation.",
      "Ask the person to search their inbox, spam folder and quarantine for mail from osFoundry.",
      "If it still does not arrive, {click} Copy invite link and send them the link yourself."),
     "Company mail servers sometimes hold messages from senders they have not seen before; the invitee's IT "
     "team can allow mail from osFoundry. If the person already has an osFoundry account under another "
     "address, they can sign in with it and accept the invitation from the link."),
    ("remove-member", "Remove a user from your workspace", "removing or deactivating a user",
     "When someone leaves your team, remove them from the workspace (some call it deactivating or offboarding a "
     "user) so that they lose access straight away. Their articles, records and comments stay where they are, "
     "under their name, and you can hand their open items to someone else.",
     ("Open Admin, then Members.",
      "Find the person and {click} the three dots next to their name.",
      "{Click} Remove from workspace.",
      "Choose who takes over the records assigned to them, or leave those unassigned.",
      "Confirm. The person is signed out of this workspace on every device."),
     "You cannot remove the only owner: transfer ownership first. If the person comes back, they are being "
     "provisioned again by SCIM or let in by an open invite link, so remove them in your identity provider or "
     "reset the link. On paid plans the seat is freed and credited on your next invoice."),
    ("transfer-ownership", "Transfer workspace ownership", "handing over the ownership of a workspace",
     "The owner of a workspace controls its billing and can delete it. If you are leaving the company or moving "
     "to another role, hand ownership to someone else first. Business and Enterprise workspaces can have "
     "several owners; Free and Team workspaces have exactly one.",
     ("Make sure the new owner is already an admin of the workspace.",
      "Open Admin, then Settings, and scroll down to Ownership.",
      "{Click} Transfer ownership and pick the new owner from the list.",
      "Type the workspace name to confirm.",
      "The new owner receives an email, and you stay on as an admin."),
     "If the person you want is not in the list, make them an admin first. If the current owner has left and "
     "can no longer sign in, an admin can ask support to transfer ownership; we need the request from your "
     "company's email domain and may ask for proof that you are authorised to make it."),
    ("delete-account", "Delete your osFoundry account", "deleting your account for good",
     "Deleting your account removes your profile and your sign-in, and takes you out of every workspace you "
     "belong to. What you wrote in shared workspaces stays there, shown as written by a former member. "
     "Deletion becomes permanent after 14 days.",
     ("If you own a workspace, transfer its ownership or delete the workspace first.",
      "Open your profile menu and {click} Settings, then Account.",
      "Scroll down and {click} Delete account.",
      "Enter your password, or confirm with SSO, and type DELETE.",
      "{Click} Delete permanently. You are signed out everywhere."),
     "Changed your mind? Sign in within 14 days and {click} Restore account on the banner. If the Delete "
     "account button is missing, your account belongs to a company workspace that uses SSO or SCIM, and only "
     "its admins can remove you."),
    ("guest-access", "Share a knowledge base with guests outside your company",
     "giving guests access to part of a workspace",
     "Guests are people outside your company, such as clients, contractors or agencies, who should see only part "
     "of a workspace. A guest sees only the knowledge bases and record channels you share with them; they cannot "
     "browse the rest or see the member list.",
     ("Open the knowledge base or record channel you want to share.",
      "{Click} Share in the top-right corner.",
      "Enter the guest's email address and choose Can view or Can edit.",
      "{Click} Invite as guest.",
      "To take the access away later, open Share again and {click} Remove next to their name."),
     "If Invite as guest is missing, an admin has turned guest access off under Admin, then Security. Guests "
     "who get an error after accepting may be signed in to a different osFoundry account; ask them to sign "
     "out and open the invitation again."),
    ("active-sessions", "Sign out of other devices and sessions", "signing out of devices you no longer use",
     "osFoundry keeps you signed in on each browser and device until you sign out, or until the session expires "
     "after 30 days without use. If you lost a laptop or used a shared computer, you can see every active "
     "session and end the ones you do not recognise.",
     ("Open your profile menu and {click} Settings, then Security.",
      "Under Active sessions, look at the device, browser, location and last activity of each session.",
      "{Click} Sign out next to any session you want to end.",
      "To log out everywhere except on this device, {click} Sign out of all other sessions.",
      "If you think someone else used your account, reset your password as well."),
     "Locations are estimated from IP addresses and can be off by a city or even a country, especially on "
     "mobile data or behind a VPN. A mobile app whose session you ended signs out the next time it connects."),
    ("create-workspace", "Create a new workspace", "starting a new workspace",
     "A workspace is the home of one team or company: its members, knowledge bases, record channels and billing. "
     "One account can belong to several workspaces, for example one for your employer and one for a side "
     "project.",
     ("Open the workspace switcher at the top of the sidebar.",
      "{Click} Create workspace.",
      "Enter a name and a web address; the address becomes part of your workspace's link.",
      "Choose a plan. Every workspace starts on Free and can be upgraded at any time.",
      "Invite your teammates now, or skip this step and invite them later."),
     "If the web address is taken, add your company's city or a short suffix. Some companies allow only their "
     "admins to create workspaces on the Enterprise plan; then Create workspace is hidden and your IT team "
     "creates it for you."),
    ("switch-workspaces", "Switch between workspaces", "moving between the workspaces you belong to",
     "If you belong to more than one workspace, you can move between them without signing out. Each workspace "
     "keeps its own notifications, settings and sidebar, so after switching you see exactly what that team "
     "sees. Unread counts on the switcher show where something is waiting for you.",
     ("{Click} the workspace name at the top of the sidebar.",
      "Pick a workspace from the list, or press Ctrl+1 to Ctrl+9 (Cmd on a Mac) to jump to one.",
      "To change the order of the list, drag a workspace up or down.",
      "To leave a workspace you no longer need, {click} the three dots next to it and choose Leave."),
     "A workspace missing from the list usually means you signed in with another email address than the one "
     "that was invited: sign in with that address, or ask to be invited again. An owner cannot leave a "
     "workspace before transferring its ownership."),
    ("account-locked", "Your account is locked after too many attempts", "a locked account",
     "After ten wrong passwords or codes in a row, osFoundry locks the account for 15 minutes to protect it from "
     "guessing. We also send an email to the account's address, so that you know someone, possibly you, tried "
     "to sign in.",
     ("Wait 15 minutes; the lock lifts by itself.",
      "Or open the email titled \"Your osFoundry account was locked\" and {click} Unlock now.",
      "Sign in carefully, checking that Caps Lock is off.",
      "If you are unsure of the password, {click} Forgot password? rather than guessing again."),
     "If it was not you trying to sign in, someone may know your email address and be guessing: turn on "
     "two-factor authentication and choose a new password you use nowhere else. A workspace admin can also "
     "unlock a member at once from Admin, then Members."),
    ("personal-data", "Download a copy of your personal data", "the personal data we hold about you",
     "You can ask for a copy of the personal data linked to your account: your profile, sign-in history, "
     "notification settings and the content you wrote. It arrives as a ZIP file of JSON and CSV documents, "
     "which is also how we answer data access requests under privacy laws such as the GDPR.",
     ("Open your profile menu and {click} Settings, then Privacy.",
      "{Click} Request my data.",
      "Confirm with your password or with SSO.",
      "Wait for the email saying your export is ready, usually within an hour.",
      "{Click} the download link in the email; it works for 7 days."),
     "Large accounts can take up to 24 hours. This export holds your own data only: to export the records of a "
     "whole workspace, an admin uses Admin, then Export. If the link has expired, request a new export."),
    ("social-sign-in", "Sign in with Google or Microsoft", "signing in with a Google or Microsoft account",
     "Instead of a separate password, you can sign in to osFoundry with your Google or Microsoft account. "
     "osFoundry receives only your name, email address and photo, and never sees your Google or Microsoft "
     "password.",
     ("On the sign-in page, {click} Continue with Google or Continue with Microsoft.",
      "Pick the account whose email address matches your osFoundry account.",
      "Approve the request the first time you do this.",
      "To add Google or Microsoft sign-in to an account that has a password, open Settings, then Security, then "
      "Connected sign-ins."),
     "If you land in a new, empty account, the Google or Microsoft address differs from the one you were "
     "invited with: sign out, and sign in with the invited address. Some companies block outside apps in "
     "Google Workspace or Microsoft 365, and an administrator there must allow osFoundry first."),
]

BILLING: List[Written] = [
    ("card-declined", "Why was my card declined?", "card payments that fail",
     "A declined card means your bank refused the charge; osFoundry receives only a short reason code, not the "
     "whole story. The usual causes are an expired card, a billing postcode that does not match, a block on "
     "online or international payments, a spending limit, or a fraud check by the bank.",
     ("Check the expiry date and postcode under Admin, then Billing, then Payment method.",
      "Make sure the card allows online and international payments; some company cards block them by default.",
      "Call the number on the back of the card and ask the bank to approve charges from osFoundry.",
      "Return to Billing and {click} Retry payment.",
      "If the bank still declines it, add a different card."),
     "After a declined payment we retry by ourselves three times over seven days and email the workspace "
     "owners each time, and the workspace stays fully usable meanwhile. If every retry fails, see What "
     "happens when a payment fails."),
    ("payment-method", "Update your payment method or credit card", "the card or account we charge",
     "The payment method is the credit or debit card, or the bank account, that osFoundry charges for your "
     "subscription. Owners and billing managers can add a new card, replace one that is about to expire, or "
     "set a backup card that we try when the main one fails.",
     ("Open Admin, then Billing.",
      "Under Payment method, {click} Update.",
      "Enter the card number, expiry date, security code and the cardholder's postcode.",
      "{Click} Save card. Your bank may show a small temporary hold while we check the card; it is released "
      "within a few days.",
      "If you like, {click} Add backup card and repeat these steps."),
     "We accept Visa, Mastercard and American Express, and SEPA direct debit in the euro area. The new card "
     "is used from the next charge on; an invoice that is already overdue can be paid now from Admin, then "
     "Billing, then Invoices. If the card is refused, see Why was my card declined?"),
    ("invoices", "Download your invoices and receipts", "invoices and receipts",
     "osFoundry writes an invoice for every charge: each monthly or yearly renewal, and each change of plan or "
     "seats. Invoices and receipts are PDF files that owners and billing managers can download at any time, "
     "for as long as the workspace exists.",
     ("Open Admin, then Billing, then Invoices.",
      "Find the invoice by its date or number.",
      "{Click} Download PDF for the invoice, or Receipt for proof of payment.",
      "To download a whole year at once, {click} Export all and choose the year."),
     "If you need your company name, address or tax ID on invoices, add them under Billing details before the "
     "next one is issued; a past invoice can be regenerated once from its menu. If an invoice is missing from "
     "the list, it may belong to another workspace you own."),
    ("compare-plans", "Compare plans: what differs between Free, Team, Business and Enterprise",
     "the differences between our plans",
     "osFoundry has four plans, and the difference between them lies in limits, features and support. Free "
     "suits small groups trying things out: up to 10 members, 3 knowledge bases "
     "and 90 days of history. Team lifts those limits and adds integrations and admin roles. Business adds SSO, "
     "audit logs and priority support. Enterprise adds SCIM, data residency, custom contracts and a named "
     "account manager.",
     ("To see your current plan, open Admin, then Billing.",
      "{Click} Compare plans to see every feature side by side.",
      "Hover over a feature's name to read what it does.",
      "{Click} Choose plan under the one you want, or Contact sales for Enterprise."),
     "Prices are per member per month, and paying yearly costs less than paying monthly. Guests are free on "
     "every plan. If you are unsure which plan fits, our sales team can set up a trial of Business or "
     "Enterprise for up to 30 days."),
    ("upgrade-plan", "Upgrade your plan", "moving to a bigger plan",
     "Upgrading unlocks the new plan's features and limits straight away. You pay only for what is left of the "
     "current billing period at the new price, so no day is charged twice.",
     ("Open Admin, then Billing.",
      "{Click} Change plan.",
      "Pick the new plan and the billing period, monthly or yearly.",
      "Look at the amount due today, which covers only the days left in the period.",
      "{Click} Upgrade. The new features appear for everyone within a minute."),
     "Only owners and billing managers see Change plan; anyone else can ask for an upgrade from the plans page, "
     "which notifies the owner. If the payment fails, you stay on your current plan and nothing changes."),
    ("downgrade-plan", "Downgrade to a smaller plan", "moving to a smaller plan",
     "A downgrade takes effect at the end of your current billing period, so you keep what you paid for until "
     "then. Features the smaller plan lacks are switched off on that date; your data is kept, though some of it "
     "may become read-only.",
     ("Open Admin, then Billing, and {click} Change plan.",
      "Choose the smaller plan.",
      "Read the list of features you will lose, such as SSO or extra knowledge bases.",
      "{Click} Confirm downgrade. The Billing page shows the date it takes effect."),
     "If you are above the smaller plan's limits, for example with more knowledge bases than Free allows, "
     "archive some first or the extra ones become read-only. You can call off a planned downgrade any time "
     "before its date with Keep current plan."),
    ("cancel-subscription", "Cancel your subscription", "cancelling a paid subscription",
     "Cancelling stops all future charges. Your workspace keeps its paid plan until the end of the period you "
     "paid for, then moves to Free; nothing is deleted, and you can subscribe again whenever you like.",
     ("Open Admin, then Billing.",
      "{Click} Cancel subscription at the bottom of the page.",
      "Tell us why you are leaving. It is optional, but it helps us.",
      "{Click} Confirm cancellation. An email confirms the date your plan ends."),
     "Only the workspace owner can cancel. If you subscribed through the App Store on an iPhone, cancel in your "
     "Apple ID subscriptions instead. To remove everything, the owner can delete the workspace from Admin, then "
     "Settings, once the subscription is cancelled."),
    ("refunds", "Request a refund", "refunds and how to ask for one",
     "We refund yearly subscriptions in full within 30 days of the first payment, and seats removed within 7 "
     "days of a renewal. Monthly payments are not refunded, but cancelling stops the next one.",
     ("Open Admin, then Billing, then Invoices.",
      "Find the charge and {click} Request refund in its menu.",
      "Choose a reason and add any details that help.",
      "Send the request; our billing team answers within two business days."),
     "A refund goes back to the card or account that paid, and banks take 5 to 10 business days to show it. "
     "If that card has been cancelled since, the bank usually passes the money on to your new card or account. "
     "For a charge you do not recognise, see I was charged twice, and talk to us before opening a dispute "
     "with your bank."),
    ("vat-tax-id", "Add a VAT number or tax ID to your invoices", "VAT numbers and other tax IDs",
     "Businesses can add a VAT number or another tax ID so that it appears on every invoice. In the EU and the "
     "UK, a valid VAT number lets us apply the reverse charge: VAT is not added to your invoice, and you account "
     "for it yourself.",
     ("Open Admin, then Billing, then Billing details.",
      "Under Tax ID, choose its type, such as EU VAT, UK VAT, ABN or GST.",
      "Enter the number exactly as it appears on your registration, with its country prefix.",
      "{Click} Save. EU and UK numbers are checked against the official register straight away."),
     "If the number is rejected, check the country prefix, and that the company name matches the registration. "
     "Tax is worked out again only for future invoices; to correct a past invoice, ask for a corrected copy from "
     "its menu within 90 days."),
    ("billing-address", "Change the company name and address on invoices", "the billing details shown on invoices",
     "Invoices show the billing details of your workspace: the company name, the postal address and the email "
     "that receives them. Update them when your company moves or changes its legal name, so that your "
     "accountants can book the invoices without asking.",
     ("Open Admin, then Billing, then Billing details.",
      "Edit the company name, street, city, postcode and country.",
      "{Click} Save details.",
      "To update an invoice that was already issued, open it and {click} Regenerate."),
     "Changing the country may change the tax on future invoices. Each invoice can be regenerated once; for "
     "any further change, contact billing support with the invoice number."),
    ("seats", "How seats are counted and billed", "paid seats",
     "On paid plans you pay for each seat, and every owner, admin and member takes one; guests are free. "
     "Adding someone adds a seat at once, charged for the rest of the period, and removing someone frees a "
     "seat, credited on your next invoice.",
     ("Open Admin, then Billing, to see the seats in use and the seats paid for.",
      "{Click} Manage seats to buy seats ahead for people you are about to invite.",
      "To pay for fewer seats, first remove people or make them guests.",
      "{Click} Save; the change shows on your next invoice."),
     "If the seat count looks too high, look in Admin, then Members, for pending invitations and for people "
     "who were never removed. On Enterprise, seats follow your contract, and your account manager adjusts "
     "them."),
    ("annual-billing", "Switch between monthly and yearly billing", "monthly and yearly (annual) billing",
     "You can pay for osFoundry every month or once a year. Annual billing costs as much as ten months, so two "
     "months are free; monthly billing lets you change your seat count often without paying ahead.",
     ("Open Admin, then Billing, and {click} Change plan.",
      "Keep your plan and switch the period to Yearly or Monthly.",
      "Check the charge: moving to yearly is charged today, minus what is left of your current month.",
      "{Click} Confirm."),
     "A switch from yearly to monthly takes effect at the end of the paid year. If the yearly amount is above "
     "your card's limit, ask us to let you pay by invoice instead."),
    ("double-charge", "I was charged twice", "duplicate or unexpected charges",
     "Two charges that look alike are usually not a double payment. Often one is a temporary hold placed when "
     "a card was added, which disappears within a few days, or a small extra charge after someone added seats "
     "or changed plan.",
     ("Open Admin, then Billing, then Invoices, and compare the charges with the invoices listed.",
      "A charge with no matching invoice is probably a card check; wait five business days for it to go.",
      "A second invoice for a small amount usually covers added seats; open it to see what it charges for.",
      "Check whether you own another workspace that pays with the same card."),
     "If you still think you paid twice, reply to the receipt email or use Request refund on the invoice; a "
     "real duplicate is refunded at once. Please talk to us before disputing the charge with your bank, because "
     "a dispute freezes the account while the bank looks into it."),
    ("free-trial", "How the free trial works", "the 14-day free trial",
     "Every new workspace can try the Business plan free for 14 days, with no card needed. During the trial "
     "you have every Business feature. At the end, the workspace goes back to Free unless you choose a paid "
     "plan.",
     ("Open Admin, then Billing, and {click} Start free trial.",
      "Invite your team and try the features you care about.",
      "Watch the days left on the banner at the top of Billing.",
      "Before the trial ends, {click} Choose plan to keep the features, or do nothing to return to Free."),
     "Each workspace gets one trial. If you need more time to decide, contact sales: Enterprise trials can be "
     "extended to 30 days. Whatever you create during the trial stays, even if you do not upgrade."),
    ("pay-by-invoice", "Pay by bank transfer or purchase order", "paying by invoice and bank transfer",
     "Yearly subscriptions of more than 20 seats can be paid by bank transfer against an invoice instead of by "
     "card. Your finance team receives the invoice by email, with 30 days to pay, and it can carry your "
     "purchase order number.",
     ("Open Admin, then Billing, and {click} Pay by invoice.",
      "Enter your finance team's email address and, if you have one, the purchase order number.",
      "Send the request; we confirm within one business day.",
      "Pay to the bank details printed on the invoice, with the invoice number as the reference."),
     "Payments without the invoice number are matched by hand and can take a week to show. When an invoice is "
     "overdue, we remind the billing email and the owner before anything changes in your workspace."),
    ("billing-contacts", "Send invoices to your finance team", "who receives billing emails",
     "By default, invoices, receipts and payment warnings go to the workspace owner. You can add billing "
     "contacts, such as your finance team's shared mailbox, so that they receive every invoice without "
     "needing an osFoundry account.",
     ("Open Admin, then Billing, then Billing details.",
      "Under Billing emails, {click} Add email.",
      "Enter the address and choose what it receives: invoices, receipts, payment warnings, or all of them.",
      "{Click} Save."),
     "If the finance mailbox gets nothing, check its spam filter and whether it accepts mail from outside your "
     "company. People who need billing access without seeing workspace content can be made billing managers "
     "and download invoices themselves."),
    ("failed-payment", "What happens when a payment fails", "overdue payments",
     "If we cannot collect a payment, your workspace does not stop at once. We retry the charge three times "
     "over seven days and email the owner and billing contacts each time. After 14 days without payment, the "
     "workspace becomes read-only until the balance is paid.",
     ("Open Admin, then Billing, and read the reason given in the red banner.",
      "Fix the cause, for example by replacing an expired card.",
      "{Click} Pay now to settle the overdue invoice at once.",
      "Editing comes back for everyone within a minute of the payment."),
     "Nothing is deleted while a workspace is read-only: everyone can still read and export. If your company "
     "needs more time, contact billing support before the 14 days are over, and we can hold off the change."),
    ("discounts", "Discounts for nonprofits and education", "nonprofit and education pricing",
     "Registered nonprofits, schools and universities get 50% off the Team and Business plans. The discount "
     "applies to every seat for as long as the organisation stays eligible.",
     ("Open Admin, then Billing, and {click} Apply for a discount.",
      "Choose Nonprofit or Education.",
      "Upload proof, such as your charity registration or an official school email domain.",
      "Wait for our answer: we review applications within five business days and email the result."),
     "The discount starts at the next renewal and is not backdated. Student clubs and personal projects are "
     "not eligible, though the Free plan covers most of them. A discount cannot be combined with a promo code."),
    ("promo-code", "Apply a promo code", "promo codes and coupons",
     "A promo code, sometimes called a coupon, gives a discount on a paid plan, for example after an event or "
     "through a partner. You enter it when you choose or change a plan, and the discount is shown before you pay.",
     ("Open Admin, then Billing, and {click} Change plan.",
      "Choose the plan and the period.",
      "{Click} Have a promo code? and type the code.",
      "{Click} Apply, check the new total, and confirm."),
     "A code can be refused because it has expired, was used already, or is meant for another plan or period. "
     "A code cannot be added after you have paid; contact billing support within 7 days if you forgot to "
     "enter one."),
    ("proration", "Understand prorated charges on your invoice", "prorated charges",
     "When you add seats or upgrade partway through a billing period, you pay only for the days that are left, "
     "not for the whole period. This is called proration, and it shows as extra lines on an invoice or as a "
     "small invoice of its own.",
     ("Open the invoice from Admin, then Billing, then Invoices.",
      "Read the lines marked Prorated: each shows the change, its dates and its amount.",
      "Credits for removed seats appear as negative lines and are taken off your next invoice.",
      "To see what a change will cost before making it, {click} Preview on the Change plan page."),
     "Proration is counted by the day in UTC, so a change late in the evening may count one more day than you "
     "expect. If a line does not match anything that changed in your workspace, contact billing support with "
     "the invoice number."),
]

INTEGRATIONS: List[Written] = [
    ("slack", "Connect Slack to your workspace", "the Slack integration",
     "With the Slack integration, osFoundry posts updates to the Slack channels you choose, such as new records, "
     "status changes or published articles, and people can search your knowledge bases from Slack with the "
     "/osfoundry command.",
     ("Open Admin, then Integrations, and {click} Slack.",
      "{Click} Connect, and approve the permissions in the Slack window that opens.",
      "Choose a record channel or knowledge base, then the Slack channel that should receive its updates.",
      "Pick the events to post: new items, status changes, comments or published articles.",
      "{Click} Save. A test message appears in Slack."),
     "To post to a private Slack channel, first invite the osFoundry app there with /invite @osFoundry. If "
     "messages stop, a Slack admin may have removed the app; connect it again from the same page. The first "
     "connection needs someone who is an admin in both osFoundry and Slack."),
    ("microsoft-teams", "Add osFoundry to Microsoft Teams", "the Microsoft Teams app",
     "The osFoundry app for Microsoft Teams sends record updates and article links to Teams channels, and lets "
     "people open knowledge base articles in a Teams tab without leaving the conversation.",
     ("In Microsoft Teams, open Apps and search for osFoundry.",
      "{Click} Add, then choose the team and the channel.",
      "Sign in to osFoundry when asked, and pick your workspace.",
      "Choose which record channels or knowledge bases post to that Teams channel.",
      "To add a tab, {click} + at the top of the Teams channel and choose osFoundry."),
     "If the app is not in the list, your Microsoft 365 administrator must allow it in the Teams admin center. "
     "Messages can take up to a minute to appear, because Microsoft delivers them in batches."),
    ("google-drive", "Connect Google Drive and attach files", "Google Drive files in osFoundry",
     "Connecting Google Drive lets you attach Docs, Sheets and other Drive files to articles and records, with a "
     "live preview. The files stay in Drive, and people see them only if Google's sharing settings let them.",
     ("Open your profile menu and {click} Settings, then Connected apps.",
      "{Click} Connect next to Google Drive and choose your Google account.",
      "Allow osFoundry to see the files you pick.",
      "In any article or record, {click} Attach, then Google Drive, and choose a file."),
     "If a teammate sees \"Request access\" instead of a preview, the file's sharing settings in Drive do not "
     "include them. For files that stop updating, see Sync errors with Google Drive."),
    ("github", "Connect GitHub and link pull requests to records", "the GitHub integration",
     "The GitHub integration links pull requests, commits and issues to osFoundry records. Mention a record's "
     "ticket number, such as BUG-1042, in a branch name, a commit message or a pull request title, and the "
     "record shows the link and its status.",
     ("Open Admin, then Integrations, and {click} GitHub.",
      "{Click} Install on GitHub and choose the organisation and the repositories.",
      "Back in osFoundry, choose the record channel whose ticket numbers to look for.",
      "If you want, turn on Move to Fixed when merged, so that a record changes status when its pull request "
      "is merged."),
     "Links appear only for activity after the installation. If nothing shows, check that the repository was "
     "selected during installation and that the ticket number is written exactly, prefix included. GitHub "
     "Enterprise Server needs the Enterprise plan."),
    ("jira", "Sync Jira issues with a record channel", "two-way sync with Jira",
     "The Jira integration keeps a record channel and a Jira project in step: new records can create Jira "
     "issues, and changes of status, assignee or priority flow both ways within a minute.",
     ("Open Admin, then Integrations, and {click} Jira.",
      "Sign in to your Atlassian site and approve access.",
      "Pick the Jira project and the osFoundry record channel to link.",
      "Map each Jira status to an option of your status field, and Jira users to osFoundry members.",
      "{Click} Start sync. Existing issues are imported first."),
     "If one issue stops syncing, its Jira status may have no match in your mapping; add it in the "
     "integration's settings. Jira's custom fields are not synced. The integration's page lists each error "
     "with its record and the reason."),
    ("zapier", "Automate work with Zapier", "automations with Zapier",
     "Zapier connects osFoundry to thousands of other apps without any code. A Zap can, for example, create a "
     "record when someone fills in a form, or send an email when a record's status changes.",
     ("In Zapier, {click} Create Zap and search for osFoundry.",
      "Choose a trigger, such as New record or Article published, or an action, such as Create record.",
      "Sign in to osFoundry and allow Zapier to access your workspace.",
      "Match the fields and test the step.",
      "Turn the Zap on."),
     "On Zapier's free plan, new events are picked up every few minutes, so short delays are normal. If a Zap "
     "fails with a permission error, the person who connected it may have left the workspace; connect "
     "osFoundry again with another account."),
    ("webhooks", "Send events to your server with webhooks", "outgoing webhooks",
     "A webhook sends an HTTP POST request to your own server whenever something happens in osFoundry, for "
     "example when a record is created or an article is published. Each request carries a JSON body and a "
     "signature header, so you can check that it really came from us.",
     ("Open Admin, then Integrations, then Webhooks, and {click} Add endpoint.",
      "Enter the HTTPS address of your server.",
      "Choose the events to send.",
      "Copy the signing secret and use it to verify the X-osFoundry-Signature header.",
      "{Click} Send test event and check that your server answers with a 2xx status."),
     "Failed deliveries are retried with growing delays for 24 hours; after that the endpoint is disabled and "
     "the admins get an email. The delivery log on the endpoint's page shows every attempt, the status code "
     "your server returned and how long it took."),
    ("api-keys", "Create and revoke API keys", "API keys",
     "API keys let scripts and other services call the osFoundry REST API on behalf of your workspace. Each key "
     "has a name, a set of scopes, such as reading records or writing articles, and an optional expiry date.",
     ("Open Admin, then Integrations, then API keys.",
      "{Click} Create key, give it a name that says what will use it, and choose its scopes.",
      "Copy the key now: it is shown only once.",
      "Send it in the Authorization header, as Bearer followed by the key.",
      "To revoke a key, {click} the three dots next to it and choose Revoke."),
     "A 401 error means the key is wrong, revoked or expired; a 403 means it lacks the scope for that call. "
     "Never commit keys to a code repository: if one leaks, revoke it at once and create a new one."),
    ("rate-limits", "API rate limits and the 429 error", "the limits on API requests",
     "To keep osFoundry fast for everyone, each API key can make 100 requests a minute, and each workspace "
     "1,000. Going over the limit returns HTTP 429 Too Many Requests, with a Retry-After header that says how "
     "many seconds to wait.",
     ("Read the X-RateLimit-Remaining header of each response to see how many requests are left.",
      "When you get a 429, wait the number of seconds in Retry-After before trying again.",
      "Use list endpoints with a larger page size instead of fetching items one by one.",
      "Use webhooks instead of asking again and again whether something changed."),
     "If you still need more, Enterprise workspaces can ask for higher limits. Scripts that share one key add "
     "up, so give each script a key of its own to see which one is busy."),
    ("calendar-feed", "Show due dates in Google Calendar or Outlook", "due dates in your calendar",
     "You can subscribe to a calendar of the due dates in a record channel, so that deadlines show up in Google "
     "Calendar, Outlook or Apple Calendar next to your meetings.",
     ("Open the record channel and {click} the menu of its date field.",
      "{Click} Subscribe in calendar and copy the calendar link.",
      "In Google Calendar, {click} + next to Other calendars, then From URL.",
      "Paste the link and {click} Add calendar."),
     "Google refreshes subscribed calendars on its own schedule, which can take up to 12 hours: a change shows "
     "in osFoundry at once and in the calendar later. The link holds a private key, so anyone who has it can "
     "see the dates; reset it from the same menu if it was shared by mistake."),
    ("onedrive", "Connect OneDrive and SharePoint", "OneDrive and SharePoint files",
     "Connect OneDrive or SharePoint to attach Word, Excel and PowerPoint files to articles and records. "
     "osFoundry shows a preview and a link; the file itself stays in Microsoft 365 with its own permissions.",
     ("Open your profile menu and {click} Settings, then Connected apps.",
      "{Click} Connect next to OneDrive and SharePoint, and sign in with your work Microsoft account.",
      "Accept the permissions asked for.",
      "In an article or record, {click} Attach, then OneDrive, and pick a file or a SharePoint site."),
     "If your company requires admin consent for apps, the sign-in stops with \"Need admin approval\"; ask "
     "your Microsoft 365 administrator to approve osFoundry once for the whole organisation."),
    ("email-to-channel", "Create records by forwarding email", "turning emails into records",
     "Every record channel has an email address of its own. Forward or send a message to it, and osFoundry "
     "creates a record with the subject line as its title, the message as its description, and any "
     "attachments attached.",
     ("Open the record channel and {click} Settings, then Email in.",
      "Copy the channel's address.",
      "Choose who may send to it: anyone, members only, or only the domains you list.",
      "Forward an email to the address and check that the record appears."),
     "Messages over 25 MB, attachments included, are rejected. If nothing appears, check the sender rules, "
     "then the channel's Email in log, which lists each message received and why any was turned away."),
    ("import-csv", "Import records from a CSV file or spreadsheet", "importing a spreadsheet",
     "You can fill a record channel from a spreadsheet by importing a CSV file. Each row becomes a record and "
     "each column is matched to a field, so moving from Excel, Google Sheets or another tool takes a few "
     "minutes.",
     ("Save your spreadsheet as CSV, in UTF-8, with a header row.",
      "Open the record channel and {click} Import, then CSV.",
      "Upload the file and match each column to a field, or create new fields.",
      "Look at the preview of the first rows to check dates and options.",
      "{Click} Import. A notification tells you when it is done."),
     "Rows with a value that does not fit its field, such as text in a number field or an unknown option, are "
     "skipped; download the error report, fix those rows and import just them again. Files of up to 50,000 "
     "rows are supported."),
    ("export-csv", "Export your records as CSV", "exporting records to a spreadsheet",
     "Export a record channel to a CSV file to analyse it in a spreadsheet or to keep a backup. The export holds "
     "every field you can see, and follows the current view's filters and sort order.",
     ("Open the record channel and apply the filters you want.",
      "{Click} the three dots at the top right and choose Export as CSV.",
      "Choose between all fields and only the visible columns.",
      "{Click} Export. The file downloads, or is emailed to you if it is large."),
     "If accented letters look wrong in Excel, open the file through Data, then From Text/CSV, and choose "
     "UTF-8. Formula fields are exported as their current values. To export the whole workspace, an admin "
     "uses Admin, then Export."),
    ("salesforce", "Connect Salesforce", "the Salesforce integration",
     "The Salesforce integration shows osFoundry records on Salesforce accounts and opportunities, so that sales "
     "teams can see a customer's open issues and open a record from the customer's page. It comes with the "
     "Business and Enterprise plans.",
     ("Open Admin, then Integrations, and {click} Salesforce.",
      "Sign in with a Salesforce administrator account.",
      "Install the osFoundry package when Salesforce asks.",
      "Choose which record channels appear on which Salesforce objects, and the field that matches them, such "
      "as the customer's email domain."),
     "Sandbox orgs need the Use sandbox option at sign-in. If records do not show on a page, add the osFoundry "
     "component to that page's layout in Salesforce's Lightning App Builder."),
    ("zendesk-import", "Move your help articles from Zendesk", "moving a help centre from Zendesk",
     "If your support articles live in Zendesk Guide, you can bring them into an osFoundry knowledge base in one "
     "go. Titles, bodies, sections and images come across; comments and votes on articles do not.",
     ("Create the knowledge base that will receive the articles.",
      "Open it and {click} Import, then Zendesk.",
      "Enter your Zendesk subdomain and sign in as a Zendesk admin.",
      "Choose the categories or sections to import, and whether they arrive as drafts.",
      "{Click} Start import and wait for the summary email."),
     "Links between Zendesk articles are rewritten to point to the new osFoundry articles. If some articles are "
     "missing, they were probably visible only to signed-in users in Zendesk: give the admin account access "
     "and import again, since articles already imported are skipped."),
    ("gitlab", "Connect GitLab merge requests", "the GitLab integration",
     "Like the GitHub integration, the GitLab one links merge requests and commits to the records whose ticket "
     "number they mention, for GitLab.com and for self-managed GitLab alike.",
     ("Open Admin, then Integrations, and {click} GitLab.",
      "Enter your GitLab address (keep gitlab.com for the hosted service) and {click} Authorise.",
      "Choose the groups or projects to watch.",
      "Pick the record channel whose ticket numbers should be matched."),
     "A self-managed GitLab must be reachable from the internet, or your firewall must let in osFoundry's IP "
     "addresses, which the integration page lists. Links appear only for activity after connecting."),
    ("scim-provisioning", "Provision users automatically with SCIM", "automatic user provisioning with SCIM",
     "SCIM lets your identity provider, such as Okta or Microsoft Entra ID, create, update and deactivate "
     "osFoundry accounts by itself. When someone joins or leaves a group in your directory, their access to "
     "osFoundry follows within minutes. SCIM is part of the Enterprise plan and works alongside SSO.",
     ("Set up single sign-on first.",
      "Open Admin, then Security, then SCIM, and {click} Generate token.",
      "In your identity provider's osFoundry app, turn on provisioning and paste the SCIM URL and the token.",
      "Assign the groups whose members should have access.",
      "Push groups to map them to roles or spaces in osFoundry."),
     "Provisioned people cannot be edited or removed in osFoundry itself; change them in the identity provider. "
     "If someone is not created, look at the provisioning log in your identity provider: the most common cause "
     "is a missing email attribute."),
    ("mcp-agents", "Connect an AI agent through the MCP server", "AI agents and the Model Context Protocol",
     "osFoundry includes an MCP server, so AI assistants that speak the Model Context Protocol can search your "
     "knowledge bases, read and cite articles, and update records for you. An agent sees only what the access "
     "grant you give it allows.",
     ("Open Admin, then Integrations, then AI agents, and {click} Create grant.",
      "Choose the knowledge bases and record channels the agent may use, and whether it may edit them.",
      "Copy the connection details into your assistant's MCP settings.",
      "Ask the assistant a question about one of your articles and check that its answer cites the article."),
     "If the agent reports a version conflict, the article or record changed after the agent read it; it "
     "should read it again and retry. You can revoke a grant from the same page at any time, and the agent "
     "loses access at its next call."),
    ("disconnect-integration", "Disconnect an integration and revoke its access", "removing an integration",
     "When you stop using an integration, disconnect it so that it can no longer read or change anything in your "
     "workspace. Disconnecting keeps what the integration already created, such as links and imported records.",
     ("Open Admin, then Integrations.",
      "{Click} the integration, then Disconnect.",
      "Confirm; the integration's access token is revoked at once.",
      "Remove osFoundry on the other service's side too, for example in Slack's app management or in GitHub's "
      "installed apps."),
     "Personal connections, such as your own Google Drive, are removed from Settings, then Connected apps "
     "instead. If an integration keeps posting after you disconnected it, two admins may have connected it "
     "separately; look for a second entry in the list."),
]

TROUBLESHOOTING: List[Written] = [
    ("slow-pages", "Pages load slowly", "slow pages",
     "osFoundry pages should open in about a second. When they take much longer, the cause is most often the "
     "network, a browser extension, or a very large view, such as a record channel showing thousands of rows "
     "at once.",
     ("Check the osFoundry status page, linked from the Help menu, for incidents in progress.",
      "Open the same page in a private window; if it is fast there, an extension is slowing it down.",
      "Test the speed of your connection and, if you are on a VPN, try without it.",
      "In large record channels, add a filter or switch to a view with fewer columns.",
      "Restart the browser to free memory if you keep many tabs open."),
     "If pages are still slow, open the Help menu and {click} Send diagnostics: it records timings of the last "
     "few pages, which shows our engineers where the time goes. Tell us roughly where you are and on which "
     "network, for example office Wi-Fi in Lisbon."),
    ("drive-sync-errors", "Sync errors with Google Drive", "Google Drive files that stop syncing",
     "A Google Drive attachment shows \"Sync error\" when osFoundry can no longer read the file, so its preview "
     "and title stop updating. The usual reasons are an expired connection, a file moved to a shared drive you "
     "cannot open, or a file deleted in Drive.",
     ("Hover over the attachment to read the reason for the error.",
      "Open your profile menu, {click} Settings, then Connected apps, and {click} Reconnect next to Google "
      "Drive.",
      "Open the file in Drive to check that it still exists and that you can see it.",
      "If it has moved, remove the attachment and attach the file again from its new place."),
     "If all your Drive attachments fail at once, your Google Workspace admin may have blocked osFoundry or "
     "changed what it may access; ask them to allow it again. A teammate's attachments depend on their own "
     "connection, so ask them to reconnect too."),
    ("notifications-missing", "Notifications are not arriving", "missing notifications",
     "If you stopped getting notifications, they may be turned off for that kind of event, muted for a channel, "
     "or blocked by your device. osFoundry notifies you in the app, by email, and with push notifications on "
     "phones and computers, and each of these has its own settings.",
     ("Open your profile menu, {click} Settings, then Notifications, and check which events are on for each "
      "kind of delivery.",
      "Make sure Do not disturb is off, and check its schedule.",
      "Open the record channel or knowledge base and check that you have not muted it.",
      "On your phone, allow notifications for osFoundry in the phone's settings.",
      "For emails, search your spam folder for mail from osFoundry."),
     "Push notifications stop going to a device that has not been used for 30 days; open the app once to "
     "register it again. If only one teammate is affected, ask them to send diagnostics from the Help menu so "
     "that we can trace the notification."),
    ("upload-failed", "File uploads fail or get stuck", "uploads that fail",
     "Each attachment can be up to 250 MB on paid plans and 25 MB on Free. An upload that stops halfway, or ends "
     "with \"Upload failed\", usually hit that limit, lost its connection, or was blocked by a firewall or an "
     "antivirus program.",
     ("Check the size of the file against your plan's limit.",
      "Try a small test file; if it uploads, the problem is the size or the connection.",
      "Stay on one network during the upload, and turn off your VPN if you use one.",
      "Rename files with unusual characters in their names and upload them again.",
      "Try another browser, or the desktop app."),
     "If uploads fail for everyone in your office, your network may inspect and block large uploads; ask your "
     "IT team to allow uploads to osFoundry. When the workspace's storage is full, uploads fail with a message "
     "saying so; see Storage limit reached."),
    ("error-messages", "Error messages and what they mean", "the error messages people meet most",
     "Most errors in osFoundry say what happened and what to do next. Here are the messages people ask us about "
     "most often, and what each one means.",
     ("\"Something went wrong\": reload the page, and if it happens again, send diagnostics from the Help menu.",
      "\"You don't have access\": ask the owner of the knowledge base or record channel to share it with you.",
      "\"This page no longer exists\": the item was deleted or moved; search for it by its title.",
      "\"Too many requests\": wait a minute before trying again.",
      "\"Session expired\": sign in again; nothing you saved is lost."),
     "When you contact support about an error, include the time it happened and the error ID shown under the "
     "message: it lets us find the exact request in our logs."),
    ("mobile-app-crash", "The mobile app crashes or closes", "crashes of the iPhone and Android apps",
     "If the osFoundry app closes by itself, freezes on the loading screen, or crashes when you open one "
     "particular article or record, the cause is usually an outdated version or damaged data stored on the "
     "phone.",
     ("Update osFoundry from the App Store or Google Play.",
      "Restart your phone.",
      "On Android, open Settings, then Apps, then osFoundry, then Storage, and {click} Clear cache.",
      "On iPhone, delete the app and install it again; your content is stored online and comes back when you "
      "sign in.",
      "Make sure your phone runs iOS 16 or Android 10 or later."),
     "If it still crashes, turn on Share crash reports in the app's settings, make it crash once more, and "
     "contact support with the time: the report tells us which screen failed. Until it is fixed, you can use "
     "osFoundry in your phone's browser."),
    ("clear-cache", "Clear your browser cache and cookies", "clearing the browser's cache",
     "Your browser keeps copies of pages and files to load them faster. After an update, an old copy can cause "
     "strange behaviour: buttons that do nothing, missing menus, or a page that will not load. Clearing the "
     "cache and cookies for osFoundry fixes most of these.",
     ("Chrome or Edge: press Ctrl+Shift+Delete (Cmd+Shift+Delete on a Mac), choose Cached images and files and "
      "Cookies, set the time range to All time and {click} Delete data.",
      "Firefox: open Settings, then Privacy and Security, then Cookies and Site Data, and {click} Clear Data.",
      "Safari: open Settings, then Privacy, then Manage Website Data, and remove osFoundry.",
      "Reload osFoundry and sign in again."),
     "Clearing cookies signs you out of websites, so have your passwords at hand. If the problem continues "
     "afterwards, try a private window; if it works there, a browser extension is the cause."),
    ("search-results", "Search doesn't find an article", "articles missing from search results",
     "Search looks at the titles and text of the published articles in the knowledge bases you can open. If an "
     "article does not show up, it may be a draft, unpublished, in a knowledge base you cannot see, or worded "
     "differently from your search.",
     ("Search with a distinctive word from the article's title rather than a whole sentence.",
      "Try another form of the word, or a synonym the author may have used.",
      "Ask the author whether the article is published; drafts appear only to editors.",
      "Check that you have access to the knowledge base it belongs to."),
     "New and edited articles can be found within seconds. If a published article that you can open never "
     "appears in the results, send us its link and the words you searched for so that we can check the index."),
    ("changes-not-saving", "Changes are not saving", "edits that do not save",
     "When osFoundry cannot reach our servers, it shows \"You're offline\", or a \"Saving\" label that never "
     "finishes. Your changes are kept on the device and sent when the connection returns, as long as you do "
     "not close the tab.",
     ("Check your internet connection by opening another website.",
      "Keep the tab open until the banner disappears and Saved appears.",
      "If the banner stays for more than a minute, copy your text somewhere safe.",
      "Reload the page and paste the text back if it is missing."),
     "Firewalls that block WebSocket connections cause this too; ask your IT team to allow them for "
     "osFoundry. If someone else changed the same article meanwhile, see This article changed while you were "
     "editing."),
    ("emails-in-spam", "osFoundry emails go to spam", "emails filtered as spam",
     "Some mail providers file notifications and invitations from osFoundry as spam or junk, especially in the "
     "first weeks. Marking them as safe teaches the filter, and fixes it for the future.",
     ("Open your spam or junk folder and find the osFoundry message.",
      "Mark it as Not spam.",
      "Add the sending address shown in the message to your contacts or safe senders.",
      "For a company mailbox, ask your IT team to allow mail from osFoundry."),
     "If messages do not arrive at all, not even in spam, your company's mail server may reject them before "
     "they reach you; your IT team can find them in its quarantine."),
    ("edit-conflict", "This article changed while you were editing", "edit conflicts",
     "If two people edit the same article or record at the same time, osFoundry never silently overwrites "
     "either change. The second person to save sees a message that the item changed, with both versions side "
     "by side.",
     ("Read the other person's changes in the comparison.",
      "Copy anything from your version that you want to keep.",
      "{Click} Load latest version.",
      "Add your changes again and save."),
     "To avoid conflicts, watch the avatars at the top of an article: they show who else has it open. Agents "
     "working through the MCP server follow the same rule and must read the latest version before saving."),
    ("blank-page", "Blank white page after signing in", "a blank white screen",
     "A page that stays white or empty after you sign in usually means the browser could not load osFoundry's "
     "scripts. An extension that blocks scripts, an old browser version or a damaged cache are the common "
     "causes.",
     ("Reload with Ctrl+Shift+R (Cmd+Shift+R on a Mac) to skip the cache.",
      "Open a private window and sign in there.",
      "Turn off ad blockers and script blockers for osFoundry.",
      "Update your browser to its latest version."),
     "If the page is blank in every browser on your network but loads on mobile data, a proxy or firewall is "
     "blocking our scripts; send your IT team this article. Otherwise, open the browser console with F12, copy "
     "any errors shown in red and send them to support."),
    ("browser-support", "Supported browsers and system requirements", "supported browsers and devices",
     "osFoundry works in the two latest versions of Chrome, Firefox, Safari and Edge. The desktop apps need "
     "Windows 10 or macOS 12 or later, and the mobile apps need iOS 16 or Android 10 or later.",
     ("To find your browser's version, open its menu and choose About.",
      "Turn on automatic updates, so that you always have a supported version.",
      "Allow cookies and JavaScript for osFoundry.",
      "Use a screen at least 1024 pixels wide for the full editor."),
     "Other browsers built on Chromium, such as Brave or Opera, usually work but are not tested. Internet "
     "Explorer is not supported. If something looks broken in a supported browser, tell us the browser and "
     "its version."),
    ("service-status", "Is osFoundry down? Check the service status", "outages and the service status",
     "If osFoundry does not load for you and your teammates at the same moment, check for an outage before "
     "anything else. Our status page shows the live status of the web app, the API, the integrations and each "
     "data region, with updates during incidents.",
     ("Open the status page from the Help menu or from the link at the bottom of the sign-in page.",
      "Look at the part you use, such as Web app, API or Slack integration.",
      "{Click} Subscribe to get incident updates by email or text message.",
      "If everything is green, the problem is probably local: try another network or device."),
     "If you think there is an outage that the status page does not show, contact support with the time and "
     "what fails. Enterprise customers can call their priority support line during incidents."),
    ("desktop-app-update", "The desktop app won't update", "updating the desktop app",
     "The desktop apps for Windows and Mac update themselves in the background and install the update when "
     "they restart. If the app keeps asking to restart, or stays on an old version, the update could not be "
     "downloaded or installed.",
     ("Quit the app completely; on Windows, right-click the tray icon and choose Quit.",
      "Open it again and choose Check for updates from the Help menu.",
      "If the update fails, download the latest installer from the downloads page and run it over the "
      "installed app.",
      "On a Mac, make sure the app is in the Applications folder, not running from Downloads."),
     "Company-managed computers may block apps that update themselves; your IT team can deploy the MSI or PKG "
     "package instead. Your data is stored online, so reinstalling never loses anything."),
    ("storage-full", "Storage limit reached", "workspace storage limits",
     "Each workspace has storage for attachments and images: 2 GB on Free, 10 GB per member on Team, and more on "
     "Business and Enterprise. When it is full, new uploads fail, but everything else keeps working.",
     ("Open Admin, then Storage, to see how much is used, and by which knowledge bases and channels.",
      "Sort attachments by size and delete the ones nobody needs.",
      "Empty the trash: deleted files count until the trash is emptied.",
      "Move large videos to a file service such as Google Drive and link to them instead.",
      "Or upgrade to a plan with more storage."),
     "The storage figure can take up to an hour to update after you delete files. Earlier versions of edited "
     "attachments count too, and can be removed from a file's history."),
    ("images-not-loading", "Images and attachments don't load", "images and previews that don't appear",
     "If images in articles show as broken icons, or attachment previews spin forever, your browser cannot reach "
     "osFoundry's file servers, which use a different address from the app itself.",
     ("Reload the page once.",
      "Open an attachment in a new tab to see whether the file itself loads.",
      "Turn off extensions that block trackers or images.",
      "Try another network; if images load there, your usual network blocks the file servers."),
     "Ask your IT team to let osFoundry's file addresses, listed on our network requirements page, through the "
     "proxy or firewall. Images from other websites placed in an article may also be blocked by those websites "
     "themselves."),
    ("wrong-time-zone", "Dates and times show the wrong time zone", "times shown in the wrong time zone",
     "osFoundry shows dates and times in the time zone of your profile. If due dates, comments or reminders "
     "appear hours off, your profile's time zone probably differs from where you are, for example after "
     "travelling.",
     ("Open your profile menu and {click} Settings, then Profile.",
      "Look at the Time zone setting.",
      "Turn on Set automatically, or pick your time zone from the list.",
      "Reload the page to see the corrected times."),
     "Fields with a date and no time, such as most due dates, do not move with time zones, so they show the "
     "same day for everyone. Exports and the API always use UTC."),
    ("editor-extensions", "Browser extensions break the editor", "extensions that get in the way of editing",
     "Some browser extensions change the text on a page, which confuses the article editor: the cursor jumps, "
     "typed text disappears or formatting goes wrong. Grammar checkers, translators and password managers are "
     "the usual suspects.",
     ("Open osFoundry in a private window, where most extensions are off, and make the same edit.",
      "If it works there, turn your extensions off one at a time to find the one at fault.",
      "Keep that extension for other sites, but turn it off for osFoundry.",
      "Use osFoundry's own spell check instead of a grammar extension."),
     "If the editor misbehaves even in a private window, tell us your browser, its version and what you typed, "
     "with a short screen recording if you can make one."),
    ("code-rejected", "Verification code rejected at sign-in", "verification codes that are refused",
     "If osFoundry keeps saying your six-digit verification code is wrong, the usual cause is a phone clock that "
     "has drifted, because authenticator codes depend on the exact time. Codes also change every 30 seconds, so "
     "one typed just as it changes can be refused.",
     ("Turn on automatic date and time in your phone's settings.",
      "In Google Authenticator on Android, open Settings, then Time correction for codes, and {click} Sync now.",
      "Wait for a fresh code and type it straight away.",
      "If you have several accounts in the app, make sure you use the entry for osFoundry."),
     "If codes are still not accepted, sign in with a recovery code and set up two-factor authentication again. "
     "Codes sent "
     "by text message can be delayed by your carrier; wait a minute before asking for another."),
]

ASKS = {  # two questions customers ask in their own words, per subject; an article quotes them
    "password-reset": ("How do I get back in if I forgot my password?", "Can I choose a new password from my phone?"),
    "sign-in-problems": ("Why does the sign-in page keep refusing my password?",
                         "What do I do if I can't get into my account?"),
    "two-factor-setup": ("How do I add an authenticator app to my account?", "Can my admin make 2FA required?"),
    "lost-2fa-device": ("What do I do if I got a new phone and my codes are gone?", "How do I use a recovery code?"),
    "sso-saml": ("How do I connect Okta or Entra ID for single sign-on?", "Can I make SSO required for my whole team?"),
    "change-email": ("Can I move my account to my new work address?", "How do I update the email I sign in with?"),
    "profile-update": ("How do I change my display name?", "Where do I upload my profile picture?"),
    "roles-permissions": ("What can an admin do that a member cannot?", "How do I change someone's role?"),
    "invite-teammates": ("How do I add a colleague to my workspace?", "Can I invite lots of people at once?"),
    "invitation-not-received": ("Why did my colleague not get an invite?", "How do I resend an invitation?"),
    "remove-member": ("How do I deactivate someone who left the company?",
                      "What happens to the records of a person I remove?"),
    "transfer-ownership": ("How do I make someone else the owner?", "What do I do if our owner has left the company?"),
    "delete-account": ("How do I close my account for good?", "Can I undo deleting my account?"),
    "guest-access": ("How do I give a client access to one knowledge base?", "What can a guest see?"),
    "active-sessions": ("How do I sign out of a computer I no longer have?",
                        "Can I see where my account is signed in?"),
    "create-workspace": ("How do I start a second workspace?", "Can I have a workspace for a side project?"),
    "switch-workspaces": ("How do I move between my workspaces?", "Why is one of my workspaces missing?"),
    "account-locked": ("Why is my account locked?", "How long do I have to wait before I can sign in again?"),
    "personal-data": ("How do I get a copy of my data under the GDPR?", "What personal data do you hold about me?"),
    "social-sign-in": ("Can I sign in with my Google account?", "How do I use my Microsoft work account to sign in?"),
    "card-declined": ("Why did my payment fail?", "What do I do if my bank refuses the charge?"),
    "payment-method": ("How do I change the card you charge?", "Can I pay with a different card next month?"),
    "invoices": ("Where do I find my receipts?", "How do I get a PDF of last month's invoice?"),
    "compare-plans": ("Which plan do I need?", "What do I get with Business that Team does not have?"),
    "upgrade-plan": ("How do I move to the Business plan?", "Do I pay the full price if I upgrade partway through?"),
    "downgrade-plan": ("How do I move to a cheaper plan?", "What happens to my data when I downgrade?"),
    "cancel-subscription": ("How do I stop paying for osFoundry?", "What happens to my workspace when I cancel?"),
    "refunds": ("Can I get my money back?", "How long does a refund take to reach my card?"),
    "vat-tax-id": ("How do I get the reverse charge on my invoices?", "Where do I enter our tax number?"),
    "billing-address": ("How do I change the address on my invoice?",
                        "Can I put our new company name on old invoices?"),
    "seats": ("Why am I paying for more seats than people?", "Do guests cost anything?"),
    "annual-billing": ("Can I pay once a year instead of every month?", "How much do I save with yearly billing?"),
    "double-charge": ("Why do I see two charges on my statement?", "What is this extra small charge on my card?"),
    "free-trial": ("Do I need a card for the trial?", "What happens when my trial ends?"),
    "pay-by-invoice": ("Can I pay by bank transfer?", "How do I add a purchase order number?"),
    "billing-contacts": ("How do I send invoices to our accounts team?",
                         "Can someone get the invoices without an account?"),
    "failed-payment": ("What happens if my payment fails?", "Why is my workspace read-only?"),
    "discounts": ("Do you offer a discount for schools?", "How do I apply for charity pricing?"),
    "promo-code": ("Where do I enter a coupon?", "Why is my promo code not working?"),
    "proration": ("Why is my invoice higher than my plan's price?", "What does prorated mean on my invoice?"),
    "slack": ("How do I get osFoundry updates in a Slack channel?", "Can I search articles from Slack?"),
    "microsoft-teams": ("How do I get record updates in a Microsoft Teams channel?",
                        "Can I open articles inside Teams?"),
    "google-drive": ("How do I attach a Google Doc to an article?", "Can my team see the Drive files I attach?"),
    "github": ("How do I link a pull request to a bug?",
               "Can a record close itself when my pull request is merged?"),
    "jira": ("How do I keep Jira and osFoundry in step?", "Can I create Jira issues from records?"),
    "zapier": ("How do I create a record from a form?", "Can I connect osFoundry to other apps without code?"),
    "webhooks": ("How do I get a POST request when a record changes?",
                 "How do I check that a webhook really came from you?"),
    "api-keys": ("How do I get a token for the REST API?", "What do I do if my key leaked?"),
    "rate-limits": ("Why do I get errors about too many requests?", "How many API calls can I make a minute?"),
    "calendar-feed": ("Can I see due dates in my calendar?", "How do I add deadlines to Outlook?"),
    "onedrive": ("How do I attach an Excel file from OneDrive?", "Can I link a SharePoint site?"),
    "email-to-channel": ("Can I create a record by sending an email?", "What is my channel's email address?"),
    "import-csv": ("How do I bring my Excel sheet into osFoundry?", "Why were some rows of my import skipped?"),
    "export-csv": ("How do I get my records into Excel?", "Can I download a channel as a spreadsheet?"),
    "salesforce": ("Can our sales team see our records in Salesforce?", "How do I add osFoundry to a Salesforce page?"),
    "zendesk-import": ("How do I move our Zendesk articles?", "Can I import a help centre from Zendesk?"),
    "gitlab": ("How do I link GitLab merge requests to records?", "Does it work with our own GitLab server?"),
    "scim-provisioning": ("How do I create accounts automatically from Okta?",
                          "Can people who leave lose access by themselves?"),
    "mcp-agents": ("How do I let an AI assistant read our articles?", "Can I limit what an agent may change?"),
    "disconnect-integration": ("How do I remove an app I no longer use?",
                               "Why does an integration still post after I removed it?"),
    "slow-pages": ("Why is osFoundry so slow today?", "What can I do about lag in big channels?"),
    "drive-sync-errors": ("Why does my Drive file show a sync error?", "How do I reconnect Google Drive?"),
    "notifications-missing": ("Why am I not notified when someone mentions me?",
                              "How do I get push notifications back on my phone?"),
    "upload-failed": ("Why does my attachment stop at 90%?", "What is the biggest file I can upload?"),
    "error-messages": ("What does \"Something went wrong\" mean?", "Why do I get \"You don't have access\"?"),
    "mobile-app-crash": ("Why does the app close when I open it?", "What do I do if the Android app freezes?"),
    "clear-cache": ("How do I delete cookies for osFoundry?", "Why do buttons do nothing after an update?"),
    "search-results": ("Why can't I find an article I know exists?", "Do drafts show up in search?"),
    "changes-not-saving": ("Why does my edit say Saving forever?", "Will I lose my work if I go offline?"),
    "emails-in-spam": ("Why do your emails end up in my junk folder?", "How do I mark osFoundry as a safe sender?"),
    "edit-conflict": ("Why does it say the article changed while I was editing?",
                      "What happens when two of us edit at once?"),
    "blank-page": ("Why is the screen empty after I sign in?", "What do I do if osFoundry shows nothing at all?"),
    "browser-support": ("Which browsers can I use?", "Does osFoundry work on my old computer?"),
    "service-status": ("Is there an outage right now?", "Where do I see if you are having problems?"),
    "desktop-app-update": ("Why is my desktop app stuck on an old version?",
                           "How do I update the Windows app by hand?"),
    "storage-full": ("Why can't I upload anything any more?", "How do I free up space?"),
    "images-not-loading": ("Why do images show as broken icons?", "Why do previews keep spinning?"),
    "wrong-time-zone": ("Why are my due dates an hour off?", "How do I fix my time zone?"),
    "editor-extensions": ("Why does my cursor jump while I type?", "Does my grammar checker work with the editor?"),
    "code-rejected": ("Why does it say my code is invalid?", "What do I do if my authenticator code does not work?"),
}

# ---------------------------------------------------------------------------
# The qualifiers: one axis per kind and, where a category needs other notes, per category.

DEVICES = (
    Qualifier("web", "on the web", "On the web, everything here happens in the browser at your workspace's "
              "address, with nothing to install; the account menu opens from your profile picture at the top "
              "right."),
    Qualifier("iphone", "on iPhone", "In the iPhone app, tap your profile picture at the top of the Home tab to "
              "reach Settings. A few admin pages are not in the app, and open in Safari instead."),
    Qualifier("ipad", "on iPad", "On iPad the app keeps the sidebar on the left, as on the web, with Settings "
              "under your profile picture at its bottom. With a keyboard attached, the web's shortcuts work too."),
    Qualifier("android", "on Android", "In the Android app, open the menu at the top left and tap your profile "
              "picture to reach Settings. Admin pages open in your browser."),
    Qualifier("windows", "in the Windows app", "The Windows app works like the web version: open Settings with "
              "Ctrl+comma or from your profile picture. It also shows desktop notifications."),
    Qualifier("mac", "in the Mac app", "The Mac app works like the web version: open Settings with Cmd+comma, "
              "or from the osFoundry menu in the menu bar."),
    Qualifier("linux", "in the Linux app", "The Linux app, available as a DEB, RPM or AppImage package, works "
              "like the web version; open Settings from your profile picture."),
)
BILLING_DEVICES = (
    Qualifier("web", "on the web", "Billing is managed on the web, in any supported browser; these steps are "
              "written for it."),
    Qualifier("iphone", "on iPhone", "Billing cannot be changed in the iPhone app: open osFoundry in Safari, or "
              "on a computer, to follow these steps. A subscription bought through the App Store is managed in "
              "your Apple ID settings."),
    Qualifier("ipad", "on iPad", "The iPad app shows your plan but cannot change billing; open osFoundry in "
              "Safari on the iPad to follow these steps."),
    Qualifier("android", "on Android", "The Android app has no billing pages; tapping Billing opens them in your "
              "browser, where these steps apply."),
    Qualifier("windows", "in the Windows app", "In the Windows app, the billing pages open inside the app, "
              "exactly as on the web."),
    Qualifier("mac", "in the Mac app", "In the Mac app, the billing pages open inside the app, exactly as on the "
              "web."),
    Qualifier("linux", "in the Linux app", "In the Linux app, the billing pages open inside the app, exactly as "
              "on the web."),
)
TROUBLE_DEVICES = (
    Qualifier("web", "on the web", "In a browser, a reload that skips the cache (Ctrl+Shift+R, or Cmd+Shift+R on "
              "a Mac) often helps by itself."),
    Qualifier("chrome", "in Chrome", "In Chrome, try a guest profile first: it starts with no extensions and no "
              "saved data, which tells you quickly whether either is the cause."),
    Qualifier("firefox", "in Firefox", "In Firefox, Troubleshoot Mode (Help, then Troubleshoot Mode) restarts "
              "the browser without extensions, a quick way to rule them out."),
    Qualifier("safari", "in Safari", "In Safari, open Settings, then Extensions, and try again with content "
              "blockers turned off for osFoundry."),
    Qualifier("edge", "in Edge", "In Edge, an InPrivate window starts without most extensions; try there "
              "before anything else."),
    Qualifier("iphone", "on iPhone", "On iPhone, offloading the app (Settings, then General, then iPhone "
              "Storage) reinstalls it while keeping you signed in."),
    Qualifier("ipad", "on iPad", "On iPad, offloading the app (Settings, then General, then iPad Storage) "
              "reinstalls it while keeping you signed in."),
    Qualifier("android", "on Android", "On Android, clearing the app's cache (Settings, then Apps, then "
              "osFoundry, then Storage) often helps without signing you out."),
    Qualifier("windows", "in the Windows app", "In the Windows app, Help, then Troubleshooting, then Clear cache "
              "and restart resets the app's local data without signing you out."),
    Qualifier("mac", "in the Mac app", "In the Mac app, Help, then Troubleshooting, then Clear cache and restart "
              "resets the app's local data without signing you out."),
    Qualifier("linux", "in the Linux app", "In the Linux app, starting it once with the --clear-cache option "
              "resets its local data without signing you out."),
)
ROLES = (
    Qualifier("owner", "as an owner", "As the workspace owner you have every permission mentioned "
              "here. If you are the only owner, make a second person an admin before changing anything that "
              "could lock you out."),
    Qualifier("admin", "as an admin", "Admins can do everything described here except billing and deleting the "
              "workspace, and can also help members from Admin, then Members."),
    Qualifier("member", "as a member", "As a member you can do this for your own account and the spaces you "
              "belong to. If an option is missing, your admins have turned it off; ask one of them."),
    Qualifier("guest", "as a guest", "Guests see only the spaces they were invited to, so some options in these "
              "steps may be missing. Ask the person who invited you if you need more access."),
)
BILLING_ROLES = (
    Qualifier("owner", "as an owner", "As the workspace owner you can change every billing setting, and "
              "billing emails come to you unless you add other contacts."),
    Qualifier("admin", "as an admin", "Admins see the billing pages only when the owner gives them billing access "
              "under Admin, then Billing, then Permissions."),
    Qualifier("billing-manager", "as a billing manager", "Billing managers can follow all of these steps; they "
              "do not see the workspace's knowledge bases or records."),
)
PLANS = (
    Qualifier("free", "Free plan", "On the Free plan the steps are the same. Support for Free workspaces is by "
              "email, with an answer within two business days.", True),
    Qualifier("team", "Team plan", "On the Team plan, admins can keep some of these options for admins only; a "
              "greyed-out button means they have done so.", True),
    Qualifier("business", "Business plan", "Business workspaces have priority support: the chat in the Help menu "
              "answers within a few hours.", True),
    Qualifier("enterprise", "Enterprise plan", "Enterprise workspaces may follow policies set by your IT team "
              "that change these steps; your internal help desk and your account manager know what applies.", True),
)
PAID_PLANS = (
    Qualifier("team", "Team plan", "Team plans are billed per member, monthly or yearly, by card.", True),
    Qualifier("business", "Business plan", "Business plans are paid by card or, when yearly and above 20 seats, "
              "by invoice.", True),
    Qualifier("enterprise", "Enterprise plan", "Enterprise billing follows your contract: payment terms, "
              "currency and invoice dates are agreed with your account manager, who can make changes for you.",
              True),
)
REGIONS = ("EU", "US", "UK", "Canada", "Australia", "Japan", "India", "Switzerland", "Singapore", "Brazil")
HOSTING = tuple(
    Qualifier(name.lower(), f"{name} region", f"This workspace is hosted in the {name} data region, so its "
              "content is stored and processed there. The steps are the same; only the addresses of the API and "
              "of file downloads differ, as listed under Admin, then Data region.", True) for name in REGIONS)
EU_TAX = ("VAT at the local rate is added to each invoice unless you enter a valid VAT number; then the reverse "
          "charge applies and you declare the VAT yourself.")
ABROAD_TAX = "We add no local tax; your company may have to declare tax on services bought from abroad."
COUNTRIES = (  # (the name as a sentence uses it, the currency of its invoices, how tax is added)
    ("the United States", "US dollars", "Sales tax is added in the states that require it, from the billing "
     "address; tax-exempt organisations can upload an exemption certificate."),
    ("Canada", "Canadian dollars", "GST or HST is added from the province of the billing address, and QST in "
     "Quebec."),
    ("Mexico", "US dollars", ABROAD_TAX),
    ("Brazil", "US dollars", ABROAD_TAX),
    ("the United Kingdom", "pounds sterling", "UK VAT is added to each invoice unless you enter a valid UK VAT "
     "number."),
    ("Ireland", "euros", EU_TAX), ("Germany", "euros", EU_TAX), ("France", "euros", EU_TAX),
    ("Spain", "euros", EU_TAX), ("Italy", "euros", EU_TAX), ("the Netherlands", "euros", EU_TAX),
    ("Belgium", "euros", EU_TAX), ("Austria", "euros", EU_TAX), ("Portugal", "euros", EU_TAX),
    ("Finland", "euros", EU_TAX), ("Sweden", "euros", EU_TAX), ("Denmark", "euros", EU_TAX),
    ("Poland", "euros", EU_TAX),
    ("Switzerland", "Swiss francs", "Swiss VAT is added unless your company gives us its UID number and is "
     "registered for VAT."),
    ("Norway", "euros", "Norwegian VAT is added unless you enter a Norwegian organisation number."),
    ("Australia", "Australian dollars", "GST is added unless you enter an ABN registered for GST."),
    ("New Zealand", "New Zealand dollars", "GST is added unless you enter a GST-registered business number."),
    ("Japan", "yen", "Japanese consumption tax is added to each invoice."),
    ("India", "rupees", "GST is added; enter your GSTIN so that you can claim the input tax credit."),
    ("Singapore", "Singapore dollars", "GST is added unless you enter a GST registration number."),
    ("South Africa", "US dollars", "South African VAT is added unless you enter a VAT registration number."),
)
BILLING_COUNTRIES = tuple(
    Qualifier(name.replace("the ", "").lower().replace(" ", "-"), f"in {name}",
              f"Workspaces billed in {name} pay in {currency}. {tax}") for name, currency, tax in COUNTRIES)

AXES: Dict[str, Tuple[Qualifier, ...]] = {
    "device": DEVICES, "billing-device": BILLING_DEVICES, "trouble-device": TROUBLE_DEVICES,
    "browser": TROUBLE_DEVICES[1:5], "mobile": TROUBLE_DEVICES[5:8], "desktop": TROUBLE_DEVICES[8:],
    "role": ROLES, "billing-role": BILLING_ROLES, "plan": PLANS, "paid-plan": PAID_PLANS,
    "region": HOSTING, "country": BILLING_COUNTRIES,
}
CATEGORY_AXES = {  # the axes of a category's subjects, in the order a title names them
    "accounts": ("device", "role", "plan", "region"),
    "billing": ("billing-device", "billing-role", "paid-plan", "country"),
    "integrations": ("device", "role", "plan", "region"),
    "troubleshooting": ("trouble-device", "plan", "region"),
}
SUBJECT_AXES = {  # the subjects for which some of their category's axes make no sense
    "webhooks": ("role", "plan", "region"), "api-keys": ("role", "plan", "region"),
    "rate-limits": ("plan", "region"), "mobile-app-crash": ("mobile", "plan", "region"),
    "clear-cache": ("browser", "plan", "region"), "editor-extensions": ("browser", "plan", "region"),
    "desktop-app-update": ("desktop", "plan", "region"),
    "compare-plans": ("billing-device", "billing-role", "country"),
    "free-trial": ("billing-device", "billing-role", "country"),
}

# ---------------------------------------------------------------------------
# The sentences around a subject's own text, drawn anew for every article.

OPENINGS = (
    "This article covers {topic}.",
    "Here is what you need to know about {topic}.",
    "People often ask us about {topic}, so the answers are collected here.",
    "A short guide to {topic}.",
    "This guide walks you through {topic}.",
    "Everything about {topic}, in a few minutes' reading.",
    "In this article: {topic}, and what to do when things do not go to plan.",
    "You are reading about {topic}.",
)
STEP_LEADS = ("Follow these steps{where}:", "What to do{where}:", "Step by step{where}:", "The steps{where}:",
              "Try these steps{where}:", "Here is what to do{where}:")
TROUBLE_LEADS = ("Still stuck?", "Troubleshooting:", "Not working?", "Problems?", "Things to check:",
                 "If something goes wrong, read on.")  # each reads well before any first sentence
ASK_LEADS = ("Customers ask us:", "This article answers questions such as:", "Common questions:",
             "Also answered here:", "Questions we hear about this:")
CLOSINGS = (
    "Still need a hand? Reply to any message from us, or write to us from the Help menu.",
    "If none of this solves it, contact our support team from the Help menu and tell us what you tried.",
    "Was this article useful? Tell us with the buttons below, or suggest what is missing.",
    "Our support team answers every message, usually within one business day.",
    "When you contact support, mention when it happened and include a screenshot; it helps us answer faster.",
    "For anything this article does not cover, the Help menu has a chat with our support team.",
    "Checked against the current version of osFoundry. If something looks different for you, let us know.",
    "Need more? Ask in the community forum, where other customers and our staff answer questions.",
)
NOTES = {
    "accounts": (
        "Changes made here reach every device you are signed in on within a minute.",
        "Admins can review security events, such as new sign-ins, in the workspace's activity history.",
        "If your company manages sign-ins centrally, your IT team controls some of these settings.",
        "Our staff will never ask for your credentials in a message; treat any message that does as phishing.",
        "Security settings are the same in the web, desktop and mobile apps.",
    ),
    "billing": (
        "Only workspace owners and billing managers have access to billing.",
        "Amounts are shown in your billing currency, which is set by the first payment.",
        "Every billing change is recorded in the activity history, with who made it and when.",
        "Replying to a message from our billing address reaches the billing team directly.",
        "Prices exclude tax unless your invoice says otherwise.",
    ),
    "integrations": (
        "Integrations act with the permissions of whoever authorised them, so choose a person who will stay with "
        "the company.",
        "Admins decide which integrations members may use, under Admin, then Integrations, then Policies.",
        "The activity of every integration is listed in the workspace's activity history.",
        "Disconnecting an integration never deletes what it already created in osFoundry.",
        "New integrations are announced in the changelog, linked from the Help menu.",
    ),
    "troubleshooting": (
        "Most problems we hear about go away after installing the latest version of the browser or of osFoundry.",
        "Diagnostics sent from the Help menu carry timings and errors, never the text of your articles or records.",
        "Our status page lists every incident of the last 90 days.",
        "A screenshot and the time of the problem in your message save a round of questions.",
        "A problem that affects one person only is usually local: the browser, the device or the network.",
    ),
}
# The lines above are drawn at random, so they avoid the words questions turn on (add, email, password, log,
# connect, phone...): otherwise the draw, not the subject, would decide which article a question finds first.
REVISION_NOTES = (  # what a colleague adds after a customer call, to any category
    "The screens in these steps were redesigned recently; if yours look different, install the latest version.",
    "Customers tell us this is quicker on a computer.",
    "If you do this on behalf of a colleague, tell them, since they are notified of the change.",
    "This article was reviewed by our support team this month.",
)
STEP_REWORDINGS = (("Open ", "Go to "), ("Go to ", "Open "), ("Choose ", "Pick "), ("Pick ", "Choose "),
                   ("Enter ", "Type "), ("Type ", "Enter "), ("Make sure ", "Check that "),
                   ("Check that ", "Make sure "), ("Click ", "Select "), ("Tap ", "Select "))  # never to a click
MENU_PATHS = ((", then ", " > "), (" > ", ", then "))  # two ways to write a way through menus: Admin > Members


def _catalogue() -> Tuple[Subject, ...]:
    """The subjects in writing order: one of each category in turn."""
    written = {"accounts": ACCOUNTS, "billing": BILLING, "integrations": INTEGRATIONS,
               "troubleshooting": TROUBLESHOOTING}
    rows = itertools.zip_longest(*(written[category] for category in CATEGORIES))
    return tuple(_subject(category, row) for turn in rows for category, row in zip(CATEGORIES, turn)
                 if row is not None)


def _subject(category: str, row: Written) -> Subject:
    """One subject of the catalogue, with its questions and the axes its variants take."""
    key, title, topic, summary, steps, trouble = row
    return Subject(key, category, title, topic, summary, steps, trouble, asks=ASKS[key],
                   axes=SUBJECT_AXES.get(key, CATEGORY_AXES[category]))


SUBJECTS = _catalogue()
SUBJECT_KEYS = tuple(subject.key for subject in SUBJECTS)

QUESTIONS: Tuple[Tuple[str, str], ...] = (  # (what people type, the subject whose article answers it)
    ("how do I reset my password", "password-reset"),
    ("I forgot my password", "password-reset"),
    ("I can't log in to my account", "sign-in-problems"),
    ("how do I turn on two-factor authentication", "two-factor-setup"),
    ("I lost my phone and can't get my 2FA code", "lost-2fa-device"),
    ("how do I set up SSO with SAML", "sso-saml"),
    ("how do I change my email address", "change-email"),
    ("how do I invite someone to my workspace", "invite-teammates"),
    ("my teammate never received the invitation email", "invitation-not-received"),
    ("how do I remove a user from our workspace", "remove-member"),
    ("how do I delete my account", "delete-account"),
    ("what is the difference between admin and member roles", "roles-permissions"),
    ("why was my card declined", "card-declined"),
    ("how do I update my credit card", "payment-method"),
    ("where can I download my invoices", "invoices"),
    ("how do I cancel my subscription", "cancel-subscription"),
    ("can I get a refund", "refunds"),
    ("how do I add our VAT number", "vat-tax-id"),
    ("I was charged twice this month", "double-charge"),
    ("what's the difference between the plans", "compare-plans"),
    ("do you have a discount for nonprofits", "discounts"),
    ("how do I connect Slack", "slack"),
    ("add osFoundry to Microsoft Teams", "microsoft-teams"),
    ("connect GitHub to osFoundry", "github"),
    ("how to sync Jira issues", "jira"),
    ("where do I create an API key", "api-keys"),
    ("how do I set up a webhook", "webhooks"),
    ("export records to CSV", "export-csv"),
    ("import a spreadsheet", "import-csv"),
    ("getting 429 too many requests from the API", "rate-limits"),
    ("pages are loading really slowly", "slow-pages"),
    ("google drive sync error", "drive-sync-errors"),
    ("I'm not getting notifications", "notifications-missing"),
    ("my file upload keeps failing", "upload-failed"),
    ("the app keeps crashing on my phone", "mobile-app-crash"),
    ("how do I clear my cache", "clear-cache"),
    ("is osFoundry down right now", "service-status"),
    ("I just see a blank white screen", "blank-page"),
    ("emails going to spam", "emails-in-spam"),
)

# ---------------------------------------------------------------------------
# Writing.

Variant = Tuple[Subject, Tuple[Qualifier, ...]]  # a subject and the qualifiers of one of its articles
DEVICE_KEYS = frozenset(q.key for axis in ("device", "trouble-device") for q in AXES[axis])


def write_articles(rng: random.Random, count: int) -> List[HelpArticle]:
    """`count` articles with distinct titles: first each subject once, then variants of them, fewest qualifiers first.

    >>> [article.subject for article in write_articles(random.Random(1), 4)]
    ['password-reset', 'card-declined', 'slack', 'slow-pages']
    """
    if count < 0:
        raise ValueError(f"count must be 0 or more, not {count}")
    return [_write(rng, subject, qualifiers, title)
            for subject, qualifiers, title in itertools.islice(_titled(_variants(rng)), count)]


def _variants(rng: random.Random) -> Iterator[Variant]:
    """Every subject with no qualifier, then with one, two... each level's in an order the rng shuffles."""
    yield from ((subject, ()) for subject in SUBJECTS)
    for level in range(1, max(len(subject.axes) for subject in SUBJECTS) + 1):
        per_subject = []
        for subject in SUBJECTS:
            combinations = [(subject, qualifiers) for axes in itertools.combinations(subject.axes, level)
                            for qualifiers in itertools.product(*(AXES[axis] for axis in axes))]
            rng.shuffle(combinations)
            per_subject.append(combinations)
        yield from _in_turn(per_subject)


def _in_turn(lists: Sequence[Sequence[Variant]]) -> Iterator[Variant]:
    """The items of the lists taken one from each in turn, skipping lists used up."""
    for row in itertools.zip_longest(*lists):
        yield from (item for item in row if item is not None)


def _titled(variants: Iterator[Variant]) -> Iterator[Tuple[Subject, Tuple[Qualifier, ...], str]]:
    """Each variant with its title, skipping a title met before; once all are used, all again numbered (2), (3)..."""
    seen: Set[str] = set()
    written = []
    for subject, qualifiers in variants:
        title = qualified_title(subject.title, [q.phrase for q in qualifiers if not q.bracketed],
                                [q.phrase for q in qualifiers if q.bracketed])
        if title not in seen:
            seen.add(title)
            written.append((subject, qualifiers, title))
            yield subject, qualifiers, title
    for number in itertools.count(2):  # the last resort: every combination has been written
        yield from ((subject, qualifiers, f"{title} ({number})") for subject, qualifiers, title in written)


def qualified_title(title: str, inline: Sequence[str], bracketed: Sequence[str]) -> str:
    """A subject's title naming its qualifiers: phrases before any final "?", bracketed ones at the end.

    >>> qualified_title("Why was my card declined?", ["on Android", "in Germany"], ["Team plan"])
    'Why was my card declined on Android in Germany? (Team plan)'
    >>> qualified_title("Reset your password", [], [])
    'Reset your password'
    """
    head, mark = (title[:-1], "?") if title.endswith("?") else (title, "")
    text = "".join([head] + [f" {phrase}" for phrase in inline] + [mark])
    return f"{text} ({', '.join(bracketed)})" if bracketed else text


def _write(rng: random.Random, subject: Subject, qualifiers: Tuple[Qualifier, ...], title: str) -> HelpArticle:
    """One article of `subject` for `qualifiers`, under `title`."""
    return HelpArticle(title, body(rng, subject, qualifiers), subject.category, subject.key)


def body(rng: random.Random, subject: Subject, qualifiers: Sequence[Qualifier] = ()) -> str:
    """An article's text: an opening and the summary, the qualifiers' notes, the steps, what to do if they fail,
    the questions customers ask, perhaps a note, and a closing line; wording drawn from the rng."""
    parts = _parts(subject, _tapping(qualifiers))
    inline = "".join(f" {q.phrase}" for q in qualifiers if not q.bracketed)
    device = next((f" {q.phrase}" for q in qualifiers if q.key in DEVICE_KEYS), "")
    paragraphs = [f"{rng.choice(OPENINGS).format(topic=subject.topic + inline)} {subject.summary}"]
    if qualifiers:
        paragraphs.append(" ".join(q.note for q in qualifiers))
    paragraphs.append(f"{rng.choice(STEP_LEADS).format(where=device)}\n{parts.steps}")
    paragraphs.append(f"{rng.choice(TROUBLE_LEADS)} {parts.trouble}")
    paragraphs.append(f"{rng.choice(ASK_LEADS)} {' '.join(subject.asks)}")
    if rng.random() < NOTE_SHARE and len(qualifiers) <= NOTED_QUALIFIERS:
        paragraphs.append(NOTE + rng.choice(NOTES[subject.category]))
    paragraphs.append(rng.choice(CLOSINGS))
    return "\n\n".join(paragraphs)


def _tapping(qualifiers: Sequence[Qualifier]) -> bool:
    """Whether the article is for a touch screen, where steps say tap."""
    return any(q.key in TAP_DEVICES for q in qualifiers)


class Parts(NamedTuple):
    """A subject's steps (numbered lines) and trouble paragraph, with its clicks or taps filled in."""

    steps: str
    trouble: str


_PARTS: Dict[Tuple[str, bool], Parts] = {}


def _parts(subject: Subject, tapping: bool) -> Parts:
    """The subject's steps and trouble text for a touch screen or not, written once and kept."""
    key = (subject.key, tapping)
    if key not in _PARTS:
        verbs = {"click": "tap", "Click": "Tap"} if tapping else {"click": "click", "Click": "Click"}
        steps = "\n".join(f"{n}. {step.format_map(verbs)}" for n, step in enumerate(subject.steps, 1))
        _PARTS[key] = Parts(steps, subject.trouble.format_map(verbs))
    return _PARTS[key]


# ---------------------------------------------------------------------------
# Revising: what a colleague saving an edit writes.


def revise(rng: random.Random, article: HelpArticle) -> str:
    """A new body for `article`, as a colleague's edit: a step reworded, a note added or changed, or a new closing.

    The edit is drawn from those that would change the body, so the body returned always differs.

    >>> article = write_articles(random.Random(1), 1)[0]
    >>> revised = revise(random.Random(2), article)
    >>> revised != article.content, revised.splitlines()[0] == article.content.splitlines()[0]
    (True, True)
    """
    paragraphs = article.content.split("\n\n")
    edits = [_reword_step, _rewrite_menu_path, _change_note, _add_note, _change_closing]
    rng.shuffle(edits)
    for edit in edits:
        edited = edit(rng, paragraphs, article.category)
        if edited is not None and "\n\n".join(edited) != article.content:
            return "\n\n".join(edited)
    return article.content + "\n\n" + NOTE + _new_note(rng, article.content, article.category)  # unreachable:
    # below MAX_NOTES a note can be added, and at MAX_NOTES one can be changed to a note the article lacks


def _step_lines(paragraphs: Sequence[str]) -> List[Tuple[int, int]]:
    """(paragraph, line) of every numbered step line."""
    return [(p, n) for p, paragraph in enumerate(paragraphs) for n, line in enumerate(paragraph.split("\n"))
            if line[:1].isdigit() and ". " in line[:4]]


def _replace_line(paragraphs: Sequence[str], where: Tuple[int, int], line: str) -> List[str]:
    """The paragraphs with one line replaced."""
    p, n = where
    lines = paragraphs[p].split("\n")
    lines[n] = line
    return [*paragraphs[:p], "\n".join(lines), *paragraphs[p + 1:]]


def _line(paragraphs: Sequence[str], where: Tuple[int, int]) -> str:
    """The line at (paragraph, line)."""
    return paragraphs[where[0]].split("\n")[where[1]]


def _reword_step(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A step that opens with a verb a colleague would put otherwise, reworded; None if no step does."""
    choices = []
    for where in _step_lines(paragraphs):
        number, text = _line(paragraphs, where).split(" ", 1)
        choices += [(where, f"{number} {after}{text[len(before):]}") for before, after in STEP_REWORDINGS
                    if text.startswith(before)]
    if not choices:
        return None
    where, line = rng.choice(choices)
    return _replace_line(paragraphs, where, line)


def _rewrite_menu_path(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A step's way through menus written the other way ("Admin, then Members" or "Admin > Members");
    None if no step goes through menus."""
    choices = [(where, before, after) for where in _step_lines(paragraphs) for before, after in MENU_PATHS
               if before in _line(paragraphs, where)]
    if not choices:
        return None
    where, before, after = rng.choice(choices)
    return _replace_line(paragraphs, where, _line(paragraphs, where).replace(before, after))


def _new_note(rng: random.Random, content: str, category: str) -> str:
    """A note the content does not hold yet, from its category's and the colleagues' own."""
    notes = [n for n in NOTES.get(category, ()) + REVISION_NOTES if n not in content]
    return rng.choice(notes or list(REVISION_NOTES))


def _change_note(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """One "Note: " paragraph replaced by another note; None if there is none."""
    places = [p for p, paragraph in enumerate(paragraphs) if paragraph.startswith(NOTE)]
    if not places:
        return None
    p = rng.choice(places)
    return [*paragraphs[:p], NOTE + _new_note(rng, "\n\n".join(paragraphs), category), *paragraphs[p + 1:]]


def _add_note(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A new "Note: " paragraph before the closing line; None once the article has MAX_NOTES."""
    if sum(paragraph.startswith(NOTE) for paragraph in paragraphs) >= MAX_NOTES:
        return None
    at = max(1, len(paragraphs) - 1)
    return [*paragraphs[:at], NOTE + _new_note(rng, "\n\n".join(paragraphs), category), *paragraphs[at:]]


def _change_closing(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """Another closing line in place of the last paragraph; None if the last paragraph is no closing line."""
    if paragraphs[-1] not in CLOSINGS:
        return None
    return [*paragraphs[:-1], rng.choice([c for c in CLOSINGS if c != paragraphs[-1]])]
