package client

// Error returns the problem's detail, the server's sentence for people
// ("invoice not found"), else its title, so that a Problem can be returned
// as an error. Branch on Status and Code, not on this text.
func (p *Problem) Error() string {
	if p.Detail != nil && *p.Detail != "" {
		return *p.Detail
	}
	return p.Title
}
