module robota.floor/cgofloor

go 1.19
