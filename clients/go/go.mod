// The fcm-emu Go helper: not yet published. Standard library only.
module github.com/fcm-emu/fcm-emu/clients/go

go 1.19
