package web

import (
	"net/http"

	"github.com/sendlater/sendlater/core"
)

type planJSON struct {
	ID          core.PlanID `json:"id"`
	Name        string      `json:"name"`
	Price       string      `json:"price"`
	Perks       []string    `json:"perks"`
	Purchasable bool        `json:"purchasable"`
}

func (s *Server) handlePlans(w http.ResponseWriter, r *http.Request) {
	var out []planJSON
	for _, p := range core.Plans() {
		out = append(out, planJSON{ID: p.ID, Name: p.Name, Price: p.Price, Perks: p.Perks, Purchasable: p.Purchasable})
	}
	writeData(w, http.StatusOK, out)
}

func handleAPINotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, core.Errorf(core.ENotFound, "There is no API endpoint %s %s.", r.Method, r.URL.Path))
}
