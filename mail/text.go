package mail

import (
	"strings"

	"golang.org/x/text/language"
)

// texts are the words of one language's messages. Placeholders in
// braces are filled in by fill: {tenant}, {customer}, {number}, {total},
// {amount_due}, {amount_paid}, {due_date}.
type texts struct {
	subject   map[Kind]string
	body      map[Kind]string
	hello     string
	viewPay   string // before the hosted page's link
	viewLink  string // the link's text in HTML
	attached  string
	replyHint string
}

// translations are the languages the messages are written in; a customer
// in another locale reads English (its amounts and dates still in its
// own locale's format).
var translations = map[string]texts{
	"en": {
		subject: map[Kind]string{
			KindInvoice:  "Invoice {number} from {tenant}",
			KindReminder: "Reminder: invoice {number} from {tenant} is overdue",
			KindReceipt:  "Receipt for invoice {number} from {tenant}",
		},
		body: map[Kind]string{
			KindInvoice:  "{tenant} has sent you invoice {number} for {total}, due on {due_date}. Amount due: {amount_due}.",
			KindReminder: "Invoice {number} from {tenant} was due on {due_date}, and {amount_due} is still unpaid.",
			KindReceipt:  "Thank you: {tenant} has received {amount_paid} for invoice {number}, which is now paid in full.",
		},
		hello:     "Hello {customer},",
		viewPay:   "View and pay the invoice online:",
		viewLink:  "View invoice {number}",
		attached:  "The invoice is attached as a PDF.",
		replyHint: "Questions? Reply to this email.",
	},
	"de": {
		subject: map[Kind]string{
			KindInvoice:  "Rechnung {number} von {tenant}",
			KindReminder: "Zahlungserinnerung: Rechnung {number} von {tenant} ist überfällig",
			KindReceipt:  "Zahlungsbestätigung für Rechnung {number} von {tenant}",
		},
		body: map[Kind]string{
			KindInvoice:  "{tenant} hat Ihnen die Rechnung {number} über {total} gesendet, fällig am {due_date}. Offener Betrag: {amount_due}.",
			KindReminder: "Die Rechnung {number} von {tenant} war am {due_date} fällig; {amount_due} sind noch offen.",
			KindReceipt:  "Vielen Dank: {tenant} hat {amount_paid} für die Rechnung {number} erhalten, die damit vollständig bezahlt ist.",
		},
		hello:     "Guten Tag {customer},",
		viewPay:   "Rechnung online ansehen und bezahlen:",
		viewLink:  "Rechnung {number} ansehen",
		attached:  "Die Rechnung liegt als PDF bei.",
		replyHint: "Fragen? Antworten Sie einfach auf diese E-Mail.",
	},
	"fr": {
		subject: map[Kind]string{
			KindInvoice:  "Facture {number} de {tenant}",
			KindReminder: "Rappel : la facture {number} de {tenant} est en retard",
			KindReceipt:  "Reçu pour la facture {number} de {tenant}",
		},
		body: map[Kind]string{
			KindInvoice:  "{tenant} vous a envoyé la facture {number} d’un montant de {total}, à régler avant le {due_date}. Montant dû : {amount_due}.",
			KindReminder: "La facture {number} de {tenant} était due le {due_date} ; {amount_due} restent impayés.",
			KindReceipt:  "Merci : {tenant} a reçu {amount_paid} pour la facture {number}, désormais entièrement réglée.",
		},
		hello:     "Bonjour {customer},",
		viewPay:   "Consulter et régler la facture en ligne :",
		viewLink:  "Voir la facture {number}",
		attached:  "La facture est jointe au format PDF.",
		replyHint: "Une question ? Répondez simplement à cet e-mail.",
	},
}

// textsFor returns the words for locale (BCP 47), English when its
// language is not translated.
func textsFor(locale string) texts {
	base, _ := language.Make(locale).Base()
	if t, ok := translations[base.String()]; ok {
		return t
	}
	return translations["en"]
}

// fill replaces the placeholders of s with vars.
func fill(s string, vars map[string]string) string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
