// Package googleopt turns an fcm-emu project into option.ClientOption values for Google's Go
// clients (google.golang.org/api, such as fcm/v1) and the Firebase Admin SDK
// (firebase.google.com/go/v4), so that code under test that takes options reaches the emulator
// with no endpoint of its own:
//
//	emu := fcmemu.Start(t)
//	project := emu.NewProject(t)
//	opts, err := googleopt.ClientOptions(ctx, project)
//	svc, err := fcm.NewService(ctx, opts...)                         // the generated client
//	app, err := firebase.NewApp(ctx, nil, opts...)                   // or the Admin SDK
//
// The options are the project's service-account key (option.WithCredentialsJSON: the project id
// for the Admin SDK) and an *http.Client (option.WithHTTPClient) that authorizes as that service
// account the way Google's libraries do, with a signed JWT exchanged at the key's token_uri (the
// emulator), and whose transport sends Google's hosts to the emulator while trusting its CA in
// this process only. option.WithHTTPClient takes precedence over the credential options, which
// is why the client carries the credentials itself.
package googleopt

import (
	"context"
	"errors"
	"net/http"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"
)

// Scopes are the OAuth scopes the Admin SDK asks for when it sends messages.
var Scopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/firebase.messaging",
}

// HTTPClient returns an *http.Client that reaches the emulator under Google's host names and
// authorizes as the project's service account through the OAuth JWT-bearer exchange at the key's
// token_uri, as google.CredentialsFromJSON does for a key file.
func HTTPClient(ctx context.Context, project *fcmemu.Project) (*http.Client, error) {
	key, err := project.ServiceAccount(ctx)
	if err != nil {
		return nil, err
	}
	return httpClient(project.Emulator(), key)
}

func httpClient(emu *fcmemu.Emulator, key []byte) (*http.Client, error) {
	if emu == nil {
		return nil, errors.New("googleopt: the project must come from an fcmemu.Emulator (Start, NewProject, Project)")
	}
	// The token source keeps this context for every refresh: not the caller's, which may end.
	tokenCtx := context.WithValue(context.Background(), oauth2.HTTPClient, emu.HTTPClient())
	creds, err := google.CredentialsFromJSON(tokenCtx, key, Scopes...)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: &oauth2.Transport{Source: creds.TokenSource, Base: emu.Transport()}}, nil
}

// ClientOptions returns the options that point a Google client or the Admin SDK at the emulator,
// as the project's service account: option.WithCredentialsJSON (the key, whose project id the
// Admin SDK reads) and option.WithHTTPClient (see HTTPClient).
//
// The endpoint is left as the client's own (https://fcm.googleapis.com/, ...), which the HTTP
// client routes; to name the emulator explicitly instead, add
// option.WithEndpoint(project.Emulator().HTTPSURL() + "/") for fcm/v1 (+ "/v1" for the Admin SDK's
// messaging endpoint).
func ClientOptions(ctx context.Context, project *fcmemu.Project) ([]option.ClientOption, error) {
	key, err := project.ServiceAccount(ctx)
	if err != nil {
		return nil, err
	}
	client, err := httpClient(project.Emulator(), key)
	if err != nil {
		return nil, err
	}
	return []option.ClientOption{option.WithCredentialsJSON(key), option.WithHTTPClient(client)}, nil
}
