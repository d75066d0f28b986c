package invoicepdf

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/text/encoding/charmap"

	"github.com/tenantkit/tenantkit/billing"
)

// document is what a PDF shows, whichever kind of invoice it draws.
type document struct {
	issuer, customer party
	number, id       string
	status           string
	// issued is when the invoice was finalized: the issue date printed,
	// and the PDF's creation and modification dates.
	issued time.Time
	// due is the due date "YYYY-MM-DD", or "" when it has none.
	due string
	// period is the period a platform invoice bills, or "".
	period                                string
	currency                              string
	lines                                 []line
	subtotal, tax, total, paid, amountDue int64
	// link is the invoice's hosted page, where the customer sees and
	// pays it; "" for none.
	link string
}

// party is the issuer or the customer: a name and the lines under it.
type party struct {
	name  string
	lines []string
}

// line is one line of the invoice.
type line struct {
	description  string
	quantity     int64
	unit, amount int64
}

// The page's geometry, in millimetres on A4.
const (
	margin       = 18.0
	bottomMargin = 22.0 // room for the footer
	lineHeight   = 5.0
	// the line table's columns: description, quantity, unit price, amount
	colDesc, colQty, colUnit, colAmount = 96.0, 18.0, 30.0, 30.0
	tableWidth                          = colDesc + colQty + colUnit + colAmount
)

// render draws d on A4 pages and returns the PDF's bytes.
func (d document) render() ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	// What would otherwise vary between runs: the dates (the clock) and
	// the order of fpdf's resource catalogs (Go's map order).
	pdf.SetCreationDate(d.issued)
	pdf.SetModificationDate(d.issued)
	pdf.SetCatalogSort(true)
	pdf.SetCompression(true)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, bottomMargin)
	pdf.SetTitle("Invoice "+d.number, true)
	pdf.SetAuthor(d.issuer.name, true)
	pdf.SetCreator("tenantkit", false)
	pdf.AliasNbPages("{nb}")
	pdf.SetFooterFunc(func() { d.footer(pdf) })
	pdf.AddPage()

	d.heading(pdf)
	d.parties(pdf)
	d.facts(pdf)
	if err := d.table(pdf); err != nil {
		return nil, err
	}
	if err := d.totals(pdf); err != nil {
		return nil, err
	}
	d.payOnline(pdf)
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("invoicepdf: invoice %s: %w", d.id, err)
	}
	return buf.Bytes(), nil
}

// heading draws the title and the issuer's name.
func (d document) heading(pdf *fpdf.Fpdf) {
	pdf.SetFont("Helvetica", "B", 22)
	pdf.CellFormat(80, 10, "INVOICE", "", 0, "L", false, 0, "")
	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(0, 10, text(d.issuer.name), "", 1, "R", false, 0, "")
	pdf.Ln(6)
}

// parties draws the issuer ("From") and the customer ("Bill to") side by
// side.
func (d document) parties(pdf *fpdf.Fpdf) {
	top := pdf.GetY()
	half := tableWidth / 2
	end := top
	for i, p := range []struct {
		label string
		party party
	}{{"From", d.issuer}, {"Bill to", d.customer}} {
		pdf.SetXY(margin+float64(i)*half, top)
		pdf.SetFont("Helvetica", "B", 9)
		pdf.SetTextColor(110, 110, 110)
		pdf.CellFormat(half, lineHeight, p.label, "", 2, "L", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
		pdf.SetFont("Helvetica", "B", 11)
		pdf.MultiCell(half-4, lineHeight+1, text(p.party.name), "", "L", false)
		pdf.SetFont("Helvetica", "", 10)
		for _, l := range p.party.lines {
			pdf.SetX(margin + float64(i)*half)
			pdf.MultiCell(half-4, lineHeight, text(l), "", "L", false)
		}
		end = max(end, pdf.GetY())
	}
	pdf.SetXY(margin, end+6)
}

// facts draws the invoice's number, id, status and dates as a list of
// labelled values.
func (d document) facts(pdf *fpdf.Fpdf) {
	due := d.due
	if due == "" {
		due = "none"
	}
	rows := [][2]string{
		{"Invoice number", d.number},
		{"Invoice ID", d.id},
		{"Status", d.status},
		{"Issue date", d.issued.Format(time.DateOnly)},
		{"Due date", due},
	}
	if d.period != "" {
		rows = append(rows, [2]string{"Period", d.period})
	}
	rows = append(rows, [2]string{"Currency", d.currency})
	for _, r := range rows {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(35, lineHeight+0.5, r[0], "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(0, lineHeight+0.5, text(r[1]), "", 1, "L", false, 0, "")
	}
	pdf.Ln(6)
}

// table draws the lines under a header row, which is drawn again on
// every page the lines continue on. A line's description wraps within
// its column; a line is never split across pages.
func (d document) table(pdf *fpdf.Fpdf) error {
	d.tableHeader(pdf)
	pdf.SetFont("Helvetica", "", 10)
	_, pageHeight := pdf.GetPageSize()
	limit := pageHeight - bottomMargin
	newPage := func() float64 {
		pdf.AddPage()
		d.tableHeader(pdf)
		pdf.SetFont("Helvetica", "", 10)
		return pdf.GetY()
	}
	for _, l := range d.lines {
		desc := pdf.SplitLines([]byte(text(l.description)), colDesc)
		if len(desc) == 0 {
			desc = [][]byte{nil}
		}
		unit, err := money(l.unit, d.currency)
		if err != nil {
			return err
		}
		amount, err := money(l.amount, d.currency)
		if err != nil {
			return err
		}
		// A line that fits on a page is kept on one; a longer one (a
		// description of many short lines) continues on the next.
		y := pdf.GetY()
		if h := float64(len(desc))*lineHeight + 2; y+h > limit && h <= limit-margin-lineHeight-2 {
			y = newPage()
		}
		y++
		for i, s := range desc {
			if y+lineHeight > limit {
				y = newPage() + 1
			}
			pdf.SetXY(margin, y)
			pdf.CellFormat(colDesc, lineHeight, string(s), "", 0, "L", false, 0, "")
			if i == 0 {
				pdf.CellFormat(colQty, lineHeight, fmt.Sprint(l.quantity), "", 0, "R", false, 0, "")
				pdf.CellFormat(colUnit, lineHeight, unit, "", 0, "R", false, 0, "")
				pdf.CellFormat(colAmount, lineHeight, amount, "", 0, "R", false, 0, "")
			}
			y += lineHeight
		}
		y++
		pdf.SetDrawColor(220, 220, 220)
		pdf.Line(margin, y, margin+tableWidth, y)
		pdf.SetXY(margin, y)
	}
	pdf.Ln(4)
	return nil
}

// tableHeader draws the line table's header row.
func (d document) tableHeader(pdf *fpdf.Fpdf) {
	pdf.SetFont("Helvetica", "B", 10)
	pdf.SetFillColor(238, 238, 238)
	pdf.CellFormat(colDesc, lineHeight+2, "Description", "", 0, "L", true, 0, "")
	pdf.CellFormat(colQty, lineHeight+2, "Qty", "", 0, "R", true, 0, "")
	pdf.CellFormat(colUnit, lineHeight+2, "Unit price", "", 0, "R", true, 0, "")
	pdf.CellFormat(colAmount, lineHeight+2, "Amount", "", 1, "R", true, 0, "")
}

// totals draws the subtotal, tax, total, amount paid and amount due,
// right-aligned under the amounts, on one page.
func (d document) totals(pdf *fpdf.Fpdf) error {
	rows := []struct {
		label  string
		amount int64
		bold   bool
	}{
		{"Subtotal", d.subtotal, false},
		{"Tax", d.tax, false},
		{"Total", d.total, true},
		{"Amount paid", d.paid, false},
		{"Amount due", d.amountDue, true},
	}
	_, pageHeight := pdf.GetPageSize()
	if pdf.GetY()+float64(len(rows))*(lineHeight+1) > pageHeight-bottomMargin {
		pdf.AddPage()
	}
	labelX := margin + colDesc + colQty - 20
	for _, r := range rows {
		s, err := money(r.amount, d.currency)
		if err != nil {
			return err
		}
		style := ""
		if r.bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 10)
		pdf.SetX(labelX)
		pdf.CellFormat(colUnit+20, lineHeight+1, r.label, "", 0, "R", false, 0, "")
		pdf.CellFormat(colAmount, lineHeight+1, s+" "+d.currency, "", 1, "R", false, 0, "")
	}
	return nil
}

// payOnline prints the hosted page's link, clickable, under the totals.
func (d document) payOnline(pdf *fpdf.Fpdf) {
	if d.link == "" {
		return
	}
	pdf.Ln(lineHeight * 2)
	pdf.SetFont("Helvetica", "", 9)
	pdf.Write(lineHeight, "View and pay online: ")
	pdf.SetTextColor(10, 88, 202)
	pdf.WriteLinkString(lineHeight, text(d.link), d.link)
	pdf.SetTextColor(0, 0, 0)
	pdf.Ln(lineHeight)
}

// footer draws the invoice's number and id and the page count at the foot
// of every page.
func (d document) footer(pdf *fpdf.Fpdf) {
	pdf.SetY(-15)
	pdf.SetFont("Helvetica", "", 8)
	pdf.SetTextColor(110, 110, 110)
	pdf.CellFormat(tableWidth-30, 4, text(fmt.Sprintf("%s · Invoice %s · %s", d.issuer.name, d.number, d.id)), "", 0, "L", false, 0, "")
	pdf.CellFormat(30, 4, fmt.Sprintf("Page %d of {nb}", pdf.PageNo()), "", 0, "R", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
}

// money formats an amount of minor units in its currency's major unit.
func money(amount int64, currency string) (string, error) {
	s, err := billing.FormatAmount(amount, currency)
	if err != nil {
		return "", fmt.Errorf("invoicepdf: %w", err)
	}
	return s, nil
}

// text turns UTF-8 into the Windows-1252 bytes the core fonts draw. A
// character outside Windows-1252 becomes "?" (fpdf's own translator makes
// it ".", which reads like a decimal point next to an amount); tabs and
// other control characters become spaces, line breaks are kept.
func text(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			c, ok := charmap.Windows1252.EncodeRune(r)
			if !ok {
				c = '?'
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
